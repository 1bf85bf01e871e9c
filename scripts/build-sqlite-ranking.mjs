// Builds the SQLite extension that ranks search matches (src/platform/search/bm25-cached.c)
// into build/sqlite/, against the headers of the SQLite that better-sqlite3 embeds. Run by
// `npm ci` and `npm install` (postinstall). Without a C compiler nothing is built and the
// service ranks with FTS5's own bm25(): the same scores, each statement counting the
// documents of its words again. Plain JavaScript: it runs before any dev dependency is used.
import { spawnSync } from 'node:child_process';
import { env, stdout } from 'node:process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/platform/search/bm25-cached.c');
const output = join(root, 'build/sqlite/bm25-cached.so');
const headers = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'deps/sqlite3');

mkdirSync(dirname(output), { recursive: true });
rmSync(output, { force: true });
const compiler = env.CC || 'cc';
const built = spawnSync(compiler, ['-O2', '-fPIC', '-shared', '-I', headers, '-o', output, source, '-lm'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
if (built.status !== 0) {
  rmSync(output, { force: true });
  const reason = built.error ? `${compiler} introuvable` : `${compiler} a échoué`;
  stdout.write(`Extension SQLite de classement non construite (${reason}) : les recherches restent exactes, classées par bm25() de FTS5.\n`);
}
