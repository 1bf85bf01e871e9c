// Lets the MCP conformance suite 0.2 (an alpha, the first to test the 2026-07-28 revision)
// run on Node 20: its single bundle imports `globSync` from node:fs (Node 22), which only
// its tier-check command calls. Loaded with `node --import`, this resolves the bundle's
// `fs` to node:fs plus a globSync that says so; nothing else of the suite is touched.
import { register } from 'node:module';

const fsWithGlob = `data:text/javascript,${encodeURIComponent(
  "export * from 'node:fs'; export { default } from 'node:fs'; export function globSync() { throw new Error('fs.globSync demande Node 22 (tier-check de la suite de conformité).'); }",
)}`;
const hooks = `export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL && context.parentURL.includes('/@modelcontextprotocol/conformance/')) {
    return { url: ${JSON.stringify(fsWithGlob)}, shortCircuit: true };
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
