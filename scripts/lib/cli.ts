// Shared pieces of the command-line scripts: their options read the same way (French help
// and errors), the service's address and the database taken from the configuration the
// service reads (src/config.ts), the database of DATABASE_URL migrated, and a clean exit
// with a French message on bad input.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { CLI_BUSY_TIMEOUT_MS, DatabaseBusyError, isBusy } from '../../src/platform/db/busy.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { queueAsWriter } from '../../src/platform/db/writer-queue.js';
import { readServiceAddress } from '../../src/platform/db/service-address.js';
import { migrateLatest, pendingMigrations } from '../../src/migrations/index.js';
import { errorSummary } from '../../src/log.js';

// A command-line tool says what failed in French, never with a stack trace.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err: unknown) => {
    console.error(`Erreur inattendue : ${errorSummary(err).message}`);
    process.exit(1);
  });
}

/** The command being run (`npm run token`) and its synopsis: said after an error. */
let command: { name: string; usage: string[] } | null = null;

export function fail(message: string): never {
  console.error(`Erreur : ${message}`);
  if (command) {
    for (const line of command.usage) console.error(`Usage : ${line}`);
    console.error(`Aide : ${command.name} -- --help`);
  }
  process.exit(2);
}

/** node:util's parse errors, said in French (its own messages are English). */
export function frenchParseError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const quoted = (/'([^']+)'/.exec(e.message ?? '')?.[1] ?? '?').replace(/ <value>$/, '');
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `option inconnue : ${quoted}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(e.message ?? '') ? `l'option ${quoted} ne prend pas de valeur` : `valeur manquante pour l'option ${quoted}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `argument inattendu : ${quoted}`;
    default:
      return 'arguments invalides';
  }
}

export type CliValues = Record<string, string | boolean | undefined>;

/**
 * The options of a command, read strictly: `--help` (`-h`) prints `help` and exits 0; an
 * unknown option, a missing value or an unexpected argument exits 2 with a French message.
 * A `--` left by npm (`npm run x -- -- --a`) or a shell is ignored.
 */
export function parseCommandLine(spec: {
  /** How the command is run (`npm run token`): named in the hint after an error. */
  command: string;
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: boolean;
  argv?: string[];
}): { values: CliValues; positionals: string[] } {
  // The synopsis: the help's lines that show how the command is typed.
  command = { name: spec.command, usage: spec.help.split('\n').filter((l) => /^\s+npm (run |start)/.test(l)).map((l) => l.trim().replace(/\s{3,}.*$/, '')) };
  const args = (spec.argv ?? process.argv.slice(2)).filter((a) => a !== '--');
  if (args.includes('--help') || args.includes('-h')) {
    console.log(spec.help.trimEnd());
    process.exit(0);
  }
  try {
    const parsed = parseArgs({ args, options: spec.options, strict: true, allowPositionals: spec.positionals ?? false });
    return { values: parsed.values as CliValues, positionals: parsed.positionals };
  } catch (err) {
    fail(frenchParseError(err));
  }
}

/** Where the address of the service came from, said with it. */
export interface ServiceAddress {
  url: string;
  /** In French: `--url`, `PUBLIC_URL`, `PORT=4000`, the database, or the default. */
  origin: string;
}

/**
 * The service's address, in this order: `--url`; PUBLIC_URL or HOST/PORT in this
 * environment, computed as the service computes it (loadConfig); the address the service
 * recorded at its start in the database of DATABASE_URL (a service started with PORT=4000
 * in another terminal); the default, http://127.0.0.1:3000. Where it came from is said with it.
 */
export async function serviceAddress(explicitUrl: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ServiceAddress> {
  if (explicitUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(explicitUrl);
    } catch {
      fail(`--url attend une adresse http(s) complète, par exemple http://127.0.0.1:3000 (reçu : ${explicitUrl.slice(0, 200)}).`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`--url attend une adresse http ou https (reçu : ${explicitUrl.slice(0, 200)}).`);
    return { url: explicitUrl.replace(/\/+$/, ''), origin: '--url' };
  }
  const config = loadConfig(env);
  if (env.PUBLIC_URL) return { url: config.publicUrl, origin: 'PUBLIC_URL' };
  const parts = [env.HOST ? `HOST=${env.HOST}` : null, env.PORT ? `PORT=${env.PORT}` : null].filter(Boolean);
  if (parts.length) return { url: config.publicUrl, origin: parts.join(', ') };
  const recorded = await readServiceAddress(config.databaseUrl);
  if (recorded) return { url: recorded, origin: `adresse enregistrée par le service à son dernier démarrage dans ${describeDatabase(config.databaseUrl)}` };
  return { url: config.publicUrl, origin: 'par défaut : ni PUBLIC_URL ni PORT, et aucun démarrage du service enregistré dans la base' };
}

/** The address and where it came from, on standard error (standard output stays the command's result). */
export function sayAddress(address: ServiceAddress, what = 'Service visé'): void {
  console.error(`${what} : ${address.url} (${address.origin}).`);
}

/** Why a connection to the service failed, and what to do, in French. */
export function unreachable(address: ServiceAddress, err: unknown): string {
  const code = String((err as { cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code ?? '');
  const why = code === 'ECONNREFUSED' ? 'aucun service n’écoute à cette adresse' : code === 'ENOTFOUND' ? 'nom d’hôte inconnu' : `connexion impossible${code ? ` (${code})` : ''}`;
  return (
    `${why} : ${address.url} (${address.origin}). Le service est-il démarré ? Sinon, donner à cette commande le même ` +
    `PORT ou PUBLIC_URL qu’au service (par exemple PORT=4000 npm run …), ou son adresse avec --url ; le service l’affiche ` +
    `à son démarrage (« Service à l'écoute : … »).`
  );
}

/** DATABASE_URL as it can be shown: a password in it is masked. */
export function describeDatabase(databaseUrl: string): string {
  return databaseUrl.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@');
}

/**
 * The database of DATABASE_URL, migrated, for `run`. A lock held by another process is
 * waited for CLI_BUSY_TIMEOUT_MS at most; meanwhile this process is queued as a waiting
 * writer, which a long import notices between its batches and makes room for (see
 * writer-queue.ts). Imports pass `queue: false`: they are the long writers others wait for.
 */
export async function withDatabase<T>(run: (db: Database) => Promise<T>, options: { queue?: boolean } = {}): Promise<T> {
  const { databaseUrl } = loadConfig();
  const db = openDatabase(databaseUrl, { busyTimeoutMs: CLI_BUSY_TIMEOUT_MS });
  const leave = options.queue === false ? async () => undefined : await queueAsWriter(db);
  try {
    // Knex takes its migration lock (a read, then a write) even with nothing to run: with
    // nothing to run, nothing is written, and a long import's commit cannot fail it.
    if ((await pendingMigrations(db)) > 0) await migrateLatest(db);
    return await run(db);
  } catch (err) {
    if (isBusy(err) || err instanceof DatabaseBusyError) {
      await leave();
      console.error(
        `Erreur : base de données verrouillée par un autre processus depuis ${CLI_BUSY_TIMEOUT_MS / 1000} s (${describeDatabase(databaseUrl)}) ; rien n'a été écrit, réessayer dans un moment.`,
      );
      process.exit(1);
    }
    throw err;
  } finally {
    await leave();
    await db.destroy();
  }
}
