// Transform: the catalogue and the operations into llms-full.txt: every tool with its
// description, REST operations, parameters and recipes.
import { describeParameters } from '../../src/contract/parameters.js';
import { byCodePoint, flatten } from '../../src/contract/text.js';
import type { OperationEntry, ProfileEntry, ToolEntry } from '../../src/contract/types.js';

export function toolSection(tool: ToolEntry, operations: Map<string, OperationEntry>): string {
  const lines = [`## ${tool.name}`, '', `**${tool.title}**`, ''];
  if (tool.status === 'alias') lines.push(`Nom historique déprécié : appelable, mais non annoncé. Utiliser \`${tool.aliasOf}\`.`, '');
  if (tool.status === 'preparation') lines.push('En préparation : décrit ici, ni annoncé ni appelable.', '');
  lines.push(flatten(tool.description), '');
  const ops = tool.operations.map((n) => operations.get(n)).filter((o): o is OperationEntry => o !== undefined);
  lines.push(`- Portée : \`${tool.scope}\` · Effet : ${tool.effect === 'write' ? 'écriture' : 'lecture'} · Réservé aux formules payantes : ${tool.paidOnly ? 'oui' : 'non'}`);
  if (tool.profiles.length) lines.push(`- Adresses : ${tool.profiles.map((p) => `\`${p}\``).join(', ')}`);
  for (const op of ops) lines.push(`- REST : \`${op.method.toUpperCase()} {base_url}${op.path}\``);
  lines.push('');
  const params = describeParameters(tool.inputSchema);
  if (tool.inputSchema) {
    lines.push('### Paramètres', '');
    if (!params.length) lines.push('Aucun : envoyer un objet vide `{}`.');
    for (const p of params) {
      const extra = p.contraintes.length ? ` (${p.contraintes.join(' ; ')})` : '';
      lines.push(`- \`${p.nom}\` : ${p.type}, ${p.requis ? 'obligatoire' : 'facultatif'}${extra}.${p.description ? ` ${p.description}` : ''}`);
    }
    lines.push('');
  }
  if (tool.recipes.length) {
    lines.push('### Recettes', '');
    for (const r of tool.recipes) {
      lines.push(`#### ${r.title}`, '');
      r.steps.forEach((s, i) => lines.push(`${i + 1}. ${s}`));
      if (r.example !== undefined) lines.push('', `Exemple d'arguments : \`${JSON.stringify(r.example)}\``);
      lines.push('');
    }
  }
  return lines.join('\n');
}

export function llmsFull(
  service: { name: string; summary: string },
  contractVersion: string,
  profiles: ProfileEntry[],
  tools: ToolEntry[],
  operations: Map<string, OperationEntry>,
): string {
  const sorted = [...tools].sort((a, b) => byCodePoint(a.name, b.name));
  return [
    `# ${service.name}`,
    '',
    `> ${flatten(service.summary)}`,
    '',
    `Version du contrat : ${contractVersion}.`,
    '',
    '## Adresses',
    '',
    ...profiles.map((p) => `- \`{base_url}${p.path}\` (${p.title}) : ${flatten(p.description)}`),
    '- `{base_url}/api/mcp/v1/{operation}` : opérations REST, chacune un `POST` JSON (`GET` pour `me`).',
    '',
    '## Règles communes',
    '',
    '- Un argument manquant, inconnu ou hors du schéma est refusé avec un message en français qui le nomme (REST 400 `invalid_arguments` ; MCP résultat `isError: true`).',
    '- Un message d\'erreur n\'est pas une donnée et ne doit pas être recopié comme un fait.',
    '- Les coordonnées (téléphone, courriel, site web) des fiches publiques ne sont jamais renvoyées.',
    '- Ne jamais boucler sur un appel refusé ; attendre `Retry-After` quand il est donné.',
    '',
    ...sorted.map((t) => toolSection(t, operations)),
  ].join('\n');
}
