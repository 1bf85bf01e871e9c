// The `instructions` of the initialize answer, per address, built from the tools the address
// lists so that they never name a tool it does not serve.
import type { ToolEntry } from '../contract/types.js';

const RULES =
  "Données des marchés publics et du bâtiment. Les coordonnées (téléphone, courriel, site web) des fiches publiques ne sont jamais renvoyées. Un message d'erreur n'est pas une donnée. Ne jamais boucler sur un appel refusé.";

/** The address's instructions: the rules, then where to read the catalogue (aide_outils when served, else the list itself). */
export function instructionsFor(listed: readonly ToolEntry[]): string {
  const names = listed.map((t) => t.name);
  if (names.includes('aide_outils') && names.includes('aide_outil')) return `${RULES} Le catalogue et la fiche de chaque outil sont donnés par aide_outils et aide_outil.`;
  return `${RULES} Outils de cette adresse : ${names.join(', ')}.`;
}
