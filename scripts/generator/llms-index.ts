// Transform: the catalogue into llms.txt (llmstxt.org layout: H1, summary quote, H2
// sections of links), one line per tool.
import { byCodePoint, firstSentence, flatten } from '../../src/contract/text.js';
import type { ProfileEntry, ToolEntry } from '../../src/contract/types.js';

export function toolLine(tool: ToolEntry): string {
  const tag = tool.status === 'alias' ? ` (nom historique déprécié : utiliser ${tool.aliasOf})` : tool.status === 'preparation' ? ' (en préparation)' : '';
  return `- [${tool.name}](/llms-full.txt#${tool.name}): ${tool.title}${tag}. ${firstSentence(tool.description)}`;
}

export function llmsIndex(service: { name: string; summary: string }, profiles: ProfileEntry[], tools: ToolEntry[]): string {
  const sorted = [...tools].sort((a, b) => byCodePoint(a.name, b.name));
  const section = (title: string, list: ToolEntry[]) => (list.length ? [`## ${title}`, '', ...list.map(toolLine), ''] : []);
  return [
    `# ${service.name}`,
    '',
    `> ${flatten(service.summary)}`,
    '',
    'Adresses MCP :',
    ...profiles.map((p) => `- \`${p.path}\` (${p.title}) : ${flatten(p.description)}`),
    '',
    '## Documents',
    '',
    '- [llms-full.txt](/llms-full.txt): tous les outils, leurs paramètres et leurs recettes',
    '- [openapi.json](/openapi.json): schéma OpenAPI 3.1 des opérations REST',
    '- [manifest.json](/agents/manifest.json): versions du contrat, du catalogue et de la documentation',
    '',
    ...section('Outils', sorted.filter((t) => t.status === 'active')),
    ...section('Optional', sorted.filter((t) => t.status !== 'active')),
  ].join('\n');
}
