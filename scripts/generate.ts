// npm run generate [-- --check]: validates contract/ and emits generated/; with --check,
// writes nothing and fails when generated/ differs from what the contract gives.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationEntry, ProfileEntry } from '../src/contract/types.js';
import { byCodePoint } from '../src/contract/text.js';
import { PROFILE_NAMES } from '../src/contract/types.js';
import { checkContract } from './generator/check-contract.js';
import { listOperations, loadContract } from './generator/contract-source.js';
import { handlerMapSource } from './generator/handler-map.js';
import { llmsFull } from './generator/llms-full.js';
import { llmsIndex } from './generator/llms-index.js';
import { manifest } from './generator/manifest.js';
import { operationEntry } from './generator/operation-entry.js';
import { registryServer } from './generator/registry-server.js';
import { toolEntry } from './generator/tool-entry.js';
import { typescriptTypes } from './generator/typescript-types.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/** `packageFile`: the package.json whose name, version and description server.json carries (the repository's, beside contract/). */
export async function buildGeneratedFiles(contractDir: string, packageFile = join(contractDir, '..', 'package.json')): Promise<Map<string, string>> {
  const source = await loadContract(contractDir);
  const pkg = JSON.parse(await readFile(packageFile, 'utf8')) as { name: string; version: string; description: string };
  const doc = source.openapi;
  const catalogue = source.tools;
  const operations = new Map<string, OperationEntry>();
  for (const { path, method, op } of listOperations(doc)) operations.set(op.operationId, operationEntry(path, method, op, doc));
  const problems = checkContract(doc, catalogue, operations);
  if (problems.length) throw new Error(`Contrat incohérent :\n- ${problems.join('\n- ')}`);

  const tools = catalogue.tools.map((t) => toolEntry(t, catalogue.tools, operations));
  const profiles: ProfileEntry[] = PROFILE_NAMES.map((name) => ({ name, ...catalogue.profiles[name] }));
  const contractVersion = doc.info['x-api-contract-version'] as string;
  const sortedOps = [...operations.values()].sort((a, b) => byCodePoint(a.name, b.name));

  const files = new Map<string, string>();
  files.set('openapi.json', json(doc));
  files.set('openapi-types.ts', await typescriptTypes(doc));
  files.set('handler-map.ts', handlerMapSource(sortedOps));
  files.set('operations.json', json({ contract_version: contractVersion, operations: sortedOps }));
  files.set('tools.json', json({ catalogue_version: catalogue.catalogue_version, profiles, tools }));
  files.set('llms.txt', llmsIndex(catalogue.service, profiles, tools) + '\n');
  files.set('llms-full.txt', llmsFull(catalogue.service, contractVersion, profiles, tools, operations) + '\n');
  files.set(
    'manifest.json',
    json(
      manifest({
        contractVersion,
        openapiVersion: doc.openapi,
        documentVersion: doc.info.version,
        catalogueVersion: catalogue.catalogue_version,
        documentationVersion: catalogue.documentation_version,
        operationCount: operations.size,
        tools,
        contractText: source.text,
      }),
    ),
  );
  files.set(
    'server.json',
    json(
      registryServer({
        packageName: pkg.name,
        version: pkg.version,
        description: pkg.description,
        title: catalogue.service.name,
        publicUrl: catalogue.service.public_url,
        mcpPath: catalogue.profiles.full.path,
      }),
    ),
  );
  return files;
}

async function main(): Promise<void> {
  // Loaded here, not at the top: tests import this module, and the CLI helpers install exit handlers.
  const { parseCommandLine } = await import('./lib/cli.js');
  const check = parseCommandLine({
    command: 'npm run generate',
    options: { check: { type: 'boolean' } },
    help: `Valide le contrat (contract/openapi.yaml, contract/tools.yaml) et écrit generated/ à partir de lui.

  npm run generate               écrit generated/
  npm run generate -- --check    n'écrit rien ; échoue (code 1) si generated/ diffère de ce que donne le contrat`,
  }).values.check === true;
  const outDir = join(root, 'generated');
  let files: Map<string, string>;
  try {
    files = await buildGeneratedFiles(join(root, 'contract'));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  if (check) {
    const stale: string[] = [];
    for (const [name, content] of files) {
      const current = await readFile(join(outDir, name), 'utf8').catch(() => null);
      if (current !== content) stale.push(name);
    }
    const present = await readdir(outDir).catch(() => [] as string[]);
    for (const name of present) if (!files.has(name)) stale.push(`${name} (en trop)`);
    if (stale.length) {
      console.error(`generated/ n'est pas à jour (lancer npm run generate) : ${stale.join(', ')}`);
      process.exit(1);
    }
    console.log(`generated/ à jour (${files.size} fichiers).`);
    return;
  }
  await mkdir(outDir, { recursive: true });
  for (const [name, content] of files) await writeFile(join(outDir, name), content);
  console.log(`generated/ écrit (${files.size} fichiers).`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
