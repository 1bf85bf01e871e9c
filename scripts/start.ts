// npm start: the service, and on first start with an empty database the small demo data set
// (written in the real open-data formats, imported by the real importers) and a demo account.
// This one-time work runs once, before any API process serves (WORKERS: see server.ts).
import { loadConfig } from '../src/config.js';
import { runService } from '../src/run-service.js';
import { createDemoAccountIfEmpty } from './demo/account.js';
import { importDemoDataIfEmpty } from './demo/first-start.js';

await runService(loadConfig(), async ({ db, dceStore }) => {
  await importDemoDataIfEmpty(db, (line) => console.log(line), dceStore);
  const demo = await createDemoAccountIfEmpty(db, new Date());
  if (demo) {
    console.log(`Compte de démonstration créé : ${demo.email} / ${demo.password}`);
    console.log(`Jeton pour un script : npm run token -- --email ${demo.email} --password ${demo.password}`);
  }
});
