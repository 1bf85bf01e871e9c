// What an address serves to agents (its instructions, its description, and each listed tool's title, description and schemas) names only tools that address serves.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { ProfileName, ToolEntry } from '../../src/contract/types.js';
import { PROFILE_NAMES } from '../../src/contract/types.js';
import { instructionsFor } from '../../src/mcp/instructions.js';

const catalogue = JSON.parse(readFileSync(new URL('../../generated/tools.json', import.meta.url), 'utf8')) as {
  tools: ToolEntry[];
  profiles: { name: ProfileName; description: string }[];
};
const toolNames = new Set(catalogue.tools.map((t) => t.name));
const listed = (profile: ProfileName): ToolEntry[] => catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));

/** The catalogue's tool names (active, historic or in preparation) a text mentions. */
function namedTools(text: string): string[] {
  return [...new Set([...text.matchAll(/[a-z][a-z0-9]*(?:_[a-z0-9]+)+/g)].map((m) => m[0]).filter((n) => toolNames.has(n)))];
}

describe('texts served per address', () => {
  for (const profile of PROFILE_NAMES) {
    it(`${profile}: instructions, description and tool texts name only tools served there`, () => {
      const served = new Set(listed(profile).map((t) => t.name));
      const texts: [string, string][] = [
        ['instructions', instructionsFor(listed(profile))],
        ['description de l’adresse', catalogue.profiles.find((p) => p.name === profile)?.description ?? ''],
        ...listed(profile).map((t): [string, string] => [t.name, JSON.stringify([t.title, t.description, t.inputSchema, t.outputSchema])]),
      ];
      for (const [where, text] of texts) expect(namedTools(text).filter((n) => !served.has(n)), `${profile} : ${where}`).to.deep.equal([]);
    });
  }

  it('the connectors address’s instructions list its four tools; the others point to aide_outils', () => {
    expect(instructionsFor(listed('connectors'))).to.match(/Outils de cette adresse : (annuaire_entreprises|marches_rechercher|marches_dce|marches_dce_lien_obtenir)(, [a-z_]+){3}\.$/);
    for (const profile of ['full', 'assistant'] as const) expect(instructionsFor(listed(profile))).to.include('aide_outils et aide_outil');
  });
});
