// npm run token -- --email E --password P [--scope "mcp:read mcp:write"] [--url BASE_URL]
// Runs the real OAuth flow against a running server, as a native client would, and prints
// an access token.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { fail } from './lib/cli.js';
import { FlowError, obtainToken } from './lib/native-flow.js';

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' }, scope: { type: 'string' }, url: { type: 'string' } }, strict: true }));
} catch (err) {
  fail((err as Error).message);
}
if (!values.email || !values.password) fail('--email et --password sont obligatoires.');
const baseUrl = (values.url ?? loadConfig().publicUrl).replace(/\/+$/, '');
try {
  const result = await obtainToken({ baseUrl, email: values.email, password: values.password, scope: values.scope });
  console.error(`Jeton obtenu (portées : ${result.scope}, valable ${result.expiresIn} s).`);
  console.log(result.accessToken);
} catch (err) {
  if (err instanceof FlowError || err instanceof TypeError) fail(`flux OAuth en échec contre ${baseUrl} : ${(err as Error).message}`);
  throw err;
}
