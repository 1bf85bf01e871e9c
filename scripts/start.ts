// npm start: the service, and on first start with an empty database the small demo data set
// (written in the real open-data formats, imported by the real importers) and a demo account.
// The service listens first (/healthz 200, /readyz 503 with its step), then this work runs once
// (WORKERS: see src/run-service.ts), then /readyz answers 200.
import { countUsers } from '../src/auth/store/accounts.js';
import { loadConfig } from '../src/config.js';
import { runService } from '../src/run-service.js';
import { createDemoAccountIfEmpty } from './demo/account.js';
import { importDemoDataIfEmpty } from './demo/first-start.js';
import { parseCommandLine } from './lib/cli.js';

parseCommandLine({
  command: 'npm start',
  options: {},
  help: `Démarre le service : migre la base de DATABASE_URL, écoute sur PORT, et au premier démarrage
(base vide) importe les données de démonstration puis crée un compte de démonstration.

  npm start

Variables lues (voir la documentation d'exploitation) : PORT (3000), HOST (127.0.0.1), PUBLIC_URL
(http://HOST:PORT), DATABASE_URL (sqlite:./data/service.sqlite), LOG_LEVEL, ROBOT, SYNC, SMTP_URL…

Adresses de surveillance : /healthz (200 dès que le service répond et que sa base est utilisable),
/readyz (503 tant que le premier démarrage prépare ses données, puis comme /healthz).`,
});

const config = loadConfig();
// A command run in another terminal, without this one's PORT or PUBLIC_URL, aims at the
// default address: the hint gives it this service's address when it is another.
const defaultAddress = loadConfig({}).publicUrl;

await runService(config, async (service) => {
  const hadAccounts = (await countUsers(service.db)) > 0;
  const imported = await importDemoDataIfEmpty(
    service.db,
    (line) => console.log(line),
    service.dceStore,
    () => {
      service.preparing('données de démonstration');
      console.log(
        'Premier démarrage : import des données de démonstration (une minute environ, davantage sur une machine chargée). ' +
          `${service.url}/healthz répond déjà 200 ; ${service.url}/readyz répond 503 jusqu'à la fin de l'import, ` +
          'puis le compte de démonstration est créé et affiché ici.',
      );
    },
  );
  const demo = await createDemoAccountIfEmpty(service.db, new Date(), hadAccounts);
  if (demo) {
    console.log(`Compte de démonstration créé : ${demo.email} / ${demo.password}`);
    console.log(`Jeton pour un script : npm run token -- ${service.url === defaultAddress ? '' : `--url ${service.url} `}--email ${demo.email} --password ${demo.password}`);
  }
  if (imported) console.log(`Prêt : données de démonstration importées, ${service.url}/readyz répond 200.`);
});
