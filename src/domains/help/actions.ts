// Help and catalogue: what each tool does, its parameters and recipes, read from the
// contract so the answer is always the published one.
import type { Caller } from '../../access/caller.js';
import { describeParameters } from '../../contract/parameters.js';
import { byCodePoint, firstSentence, flatten } from '../../contract/text.js';
import type { ToolEntry } from '../../contract/types.js';
import { NotFoundError } from '../../errors.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type HelpActions = Pick<HandlerMap<Caller>, 'aide.outils' | 'aide.outil'>;
type Summary = OperationResults['aide.outils']['items'][number];

function summary(tool: ToolEntry): Summary {
  return {
    nom: tool.name,
    titre: tool.title,
    resume: firstSentence(tool.description),
    statut: tool.status,
    remplace_par: tool.aliasOf,
    operations: tool.operations,
    profils: tool.profiles,
    scope: tool.scope,
    effet: tool.effect,
    payant: tool.paidOnly,
  };
}

export function helpActions({ contract }: Services): HelpActions {
  return {
    'aide.outils': async (args) => {
      const items = contract.tools
        .filter((t) => !args.profil || t.profiles.includes(args.profil))
        .filter((t) => !args.statut || t.status === args.statut)
        .map(summary)
        .sort((a, b) => byCodePoint(a.nom, b.nom));
      return { total: items.length, items };
    },
    'aide.outil': async (args) => {
      const name = args.nom.trim();
      const tool = contract.tools.find((t) => t.name === name) ?? contract.tools.find((t) => t.status === 'active' && t.operations.includes(name));
      if (!tool) throw new NotFoundError(`Outil ou opération inconnu : « ${name} ». La liste est donnée par aide_outils.`);
      return {
        ...summary(tool),
        description: flatten(tool.description),
        parametres: describeParameters(tool.inputSchema),
        recettes: tool.recipes.map((r) => ({ titre: r.title, etapes: r.steps, ...(r.example !== undefined ? { exemple: r.example } : {}) })),
      };
    },
  };
}
