// Rule: lint holds the borders between layers: platform/ knows no domain, identity, access or transport; domains/ no transport; import/ and sync/ no domain; transports no domain; src/ nothing of scripts/.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A file that would sit at `file` and import `specifier` (once as a value, once as a type). */
const source = (specifier: string) => `import { thing } from '${specifier}';\nimport type { Other } from '${specifier}';\nexport const used: Other = thing;\n`;

const cases: { file: string; specifier: string; refused: boolean }[] = [
  // platform/
  { file: 'src/platform/search/bad.ts', specifier: '../../domains/companies/store.js', refused: true },
  { file: 'src/platform/db/bad.ts', specifier: '../../auth/store/accounts.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../access/caller.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../rest/router.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../mcp/router.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../http/permalinks.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../import/run.js', refused: true },
  { file: 'src/platform/bad.ts', specifier: '../call-path.js', refused: true },
  { file: 'src/platform/search/good.ts', specifier: '../db/database.js', refused: false },
  { file: 'src/platform/search/good.ts', specifier: './text-fold.js', refused: false },
  // domains/
  { file: 'src/domains/companies/bad.ts', specifier: '../../rest/router.js', refused: true },
  { file: 'src/domains/companies/bad.ts', specifier: '../../mcp/card.js', refused: true },
  { file: 'src/domains/bad.ts', specifier: '../http/permalinks.js', refused: true },
  { file: 'src/domains/companies/good.ts', specifier: '../../platform/search/cursor.js', refused: false },
  { file: 'src/domains/companies/good.ts', specifier: '../reference/lists.js', refused: false },
  // import/
  { file: 'src/import/bad.ts', specifier: '../domains/importers.js', refused: true },
  { file: 'src/import/bad.ts', specifier: '../domains/companies/import-sirene.js', refused: true },
  { file: 'src/import/good.ts', specifier: './importer.js', refused: false },
  { file: 'src/import/good.ts', specifier: '../platform/db/statements.js', refused: false },
  // sync/
  { file: 'src/sync/bad.ts', specifier: '../domains/connectors.js', refused: true },
  { file: 'src/sync/bad.ts', specifier: '../auth/store/accounts.js', refused: true },
  { file: 'src/sync/good.ts', specifier: '../import/importer.js', refused: false },
  { file: 'src/sync/good.ts', specifier: '../platform/paris-time.js', refused: false },
  // transports
  { file: 'src/rest/bad.ts', specifier: '../domains/companies/actions.js', refused: true },
  { file: 'src/mcp/bad.ts', specifier: '../domains/index.js', refused: true },
  { file: 'src/http/bad.ts', specifier: '../domains/notices/store.js', refused: true },
  { file: 'src/rest/good.ts', specifier: '../call-path.js', refused: false },
  // scripts/
  { file: 'src/bad.ts', specifier: '../scripts/demo/first-start.js', refused: true },
  { file: 'src/domains/bad.ts', specifier: '../../scripts/demo/account.js', refused: true },
  { file: 'src/platform/db/bad.ts', specifier: '../../../scripts/lib/cli.js', refused: true },
  { file: 'scripts/good.ts', specifier: '../src/domains/importers.js', refused: false },
];

describe('layout: lint borders between the layers (no-restricted-imports)', function () {
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: root });

  for (const { file, specifier, refused } of cases) {
    it(`${refused ? 'refuses' : 'accepts'} ${specifier} in ${file}`, async () => {
      const [result] = await eslint.lintText(source(specifier), { filePath: `${root}${file}` });
      const messages = (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
      if (refused) {
        expect(messages, file).to.have.length(2);
        expect(messages[0]?.message).to.match(/ne connaît|ne dépend|n’importe|ne décide/);
      } else {
        expect(messages.map((m) => m.message)).to.deep.equal([]);
      }
    });
  }
});
