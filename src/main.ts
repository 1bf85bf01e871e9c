// Entry of a deployment: the service on the configured database, until SIGTERM or SIGINT.
// `npm start` runs scripts/start.ts, which adds the demo data and account on first start.
import { loadConfig } from './config.js';
import { runService } from './run-service.js';

await runService(loadConfig());
