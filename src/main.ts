// Entry point of `npm start`.
import { loadConfig } from './config.js';
import { importDemoDataIfEmpty } from '../scripts/demo/first-start.js';
import { createDemoAccountIfEmpty } from '../scripts/demo/account.js';
import { startService } from './server.js';

const config = loadConfig();
const service = await startService(config);
service.logger.info({ url: service.url }, 'service démarré');
console.log(`Service à l'écoute : ${service.url}`);
await importDemoDataIfEmpty(service.db, (line) => console.log(line));
const demo = await createDemoAccountIfEmpty(service.db, new Date());
if (demo) {
  console.log(`Compte de démonstration créé : ${demo.email} / ${demo.password}`);
  console.log(`Jeton pour un script : npm run token -- --email ${demo.email} --password ${demo.password}`);
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'arrêt demandé : fin des appels en cours');
    service.stop().then(
      () => {
        service.logger.info('service arrêté');
        process.exit(0);
      },
      (err: Error) => {
        service.logger.error({ err: err.message }, 'arrêt en échec');
        process.exit(1);
      },
    );
  });
}
