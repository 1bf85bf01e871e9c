// npm run token -- --email E --password P [--scope "mcp:read mcp:write"] [--url BASE_URL]
// Runs the real OAuth flow against a running server, as a native client would, and prints
// an access token. The server's address: --url, else as the service computes it (PUBLIC_URL,
// HOST, PORT), else the one the service recorded in its database; said on standard error.
import { fail, parseCommandLine, sayAddress, serviceAddress, unreachable } from './lib/cli.js';
import { FlowError, obtainToken } from './lib/native-flow.js';

const { values } = parseCommandLine({
  command: 'npm run token',
  options: { email: { type: 'string' }, password: { type: 'string' }, scope: { type: 'string' }, url: { type: 'string' } },
  help: `Obtient un jeton d'accès par le vrai parcours OAuth (comme une application native) et l'écrit
sur la sortie standard.

  npm run token -- --email ADRESSE --password MOT_DE_PASSE [--scope "mcp:read mcp:write"] [--url ADRESSE_DU_SERVICE]

  --email      adresse du compte
  --password   mot de passe du compte
  --scope      portées demandées, séparées par des espaces (par défaut : celles du serveur, mcp:public)
  --url        adresse du service, par exemple http://127.0.0.1:4000

Sans --url, l'adresse est calculée comme le service la calcule : PUBLIC_URL, sinon http://HOST:PORT ;
sans ces variables, celle que le service a enregistrée à son dernier démarrage dans la base de
DATABASE_URL (un service lancé avec PORT=4000 dans un autre terminal est donc trouvé) ; à défaut
http://127.0.0.1:3000. L'adresse utilisée et sa provenance sont affichées sur la sortie d'erreur.`,
});
if (typeof values.email !== 'string' || typeof values.password !== 'string' || !values.email || !values.password) fail('--email et --password sont obligatoires.');
const address = await serviceAddress(values.url as string | undefined);
sayAddress(address);
try {
  const result = await obtainToken({ baseUrl: address.url, email: values.email, password: values.password, scope: values.scope as string | undefined });
  console.error(`Jeton obtenu (portées : ${result.scope}, valable ${result.expiresIn} s).`);
  console.log(result.accessToken);
} catch (err) {
  if (err instanceof TypeError) fail(unreachable(address, err));
  if (err instanceof FlowError) fail(`flux OAuth en échec contre ${address.url} : ${err.message}`);
  throw err;
}
