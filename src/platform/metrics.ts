// The metrics of one process (prom-client, Prometheus text format): calls, their durations,
// quota refusals, the database pools' waits, and Node's own (CPU, memory, event-loop delay).
// Each process counts its own; across the workers of a machine they are summed by the primary
// (metrics-cluster.ts). Label values come from fixed sets (the contract's names, the
// addresses, status codes, pool names): never a user value.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { waitingForConnection, type Database } from './db/database.js';

export const METRIC_PREFIX = 'batidata_';

/** Seconds: from a cached read to a call cut at the 35 s limit. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 35];
/** Seconds waited for a database connection: none at all, up to the 3 s acquisition limit. */
const POOL_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3, 10];

export interface CallObservation {
  address: string;
  operation: string;
  status: number;
  seconds: number;
}

/** The pool knex keeps (tarn): its events and counts. */
interface TarnPool {
  on(event: 'acquireRequest', listener: (id: number) => void): void;
  on(event: 'acquireSuccess' | 'acquireFail', listener: (id: number) => void): void;
  removeListener(event: string, listener: (id: number) => void): void;
  numUsed(): number;
  numFree(): number;
  max: number;
}

export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'address' | 'operation' | 'status'>;
  private readonly durations: Histogram<'address' | 'operation'>;
  private readonly quotaRefusals: Counter<'ceiling'>;
  private readonly poolWaits: Histogram<'pool'>;
  private readonly poolFailures: Counter<'pool'>;
  private readonly pools = new Map<string, Database>();

  /**
   * `node`: Node's own metrics too (CPU, memory, event-loop delay). They sample the event
   * loop on a timer, so only a process whose metrics are served turns them on.
   */
  constructor(options: { node?: boolean } = {}) {
    const registers = [this.registry];
    if (options.node) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.calls = new Counter({
      name: `${METRIC_PREFIX}calls_total`,
      help: 'Appels par adresse (rest, /api/mcp…), opération (ou méthode MCP) et statut HTTP.',
      labelNames: ['address', 'operation', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: `${METRIC_PREFIX}call_duration_seconds`,
      help: 'Durée des appels, de la requête reçue à la réponse écrite, par adresse et opération.',
      labelNames: ['address', 'operation'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.quotaRefusals = new Counter({
      name: `${METRIC_PREFIX}quota_refusals_total`,
      help: 'Appels refusés par un quota, par plafond (minute, jour, dossiers).',
      labelNames: ['ceiling'],
      registers,
    });
    this.poolWaits = new Histogram({
      name: `${METRIC_PREFIX}db_pool_wait_seconds`,
      help: 'Attente d’une connexion du pool de la base de données, par pool.',
      labelNames: ['pool'],
      buckets: POOL_BUCKETS,
      registers,
    });
    this.poolFailures = new Counter({
      name: `${METRIC_PREFIX}db_pool_timeouts_total`,
      help: 'Connexions attendues en vain (délai d’acquisition dépassé), par pool.',
      labelNames: ['pool'],
      registers,
    });
    const pools = this.pools;
    const gauge = (name: string, help: string, read: (db: Database) => number) =>
      new Gauge({
        name: `${METRIC_PREFIX}${name}`,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          this.reset();
          for (const [pool, db] of pools) this.set({ pool }, read(db));
        },
      });
    gauge('db_pool_pending', 'Requêtes qui attendent une connexion en ce moment, par pool.', (db) => waitingForConnection(db));
    gauge('db_pool_used', 'Connexions prises en ce moment, par pool.', (db) => tarnOf(db)?.numUsed() ?? 0);
    gauge('db_pool_max', 'Taille maximale du pool, par pool.', (db) => tarnOf(db)?.max ?? 0);
  }

  observeCall(call: CallObservation): void {
    this.calls.inc({ address: call.address, operation: call.operation, status: String(call.status) });
    this.durations.observe({ address: call.address, operation: call.operation }, call.seconds);
  }

  quotaRefused(ceiling: 'minute' | 'day' | 'files'): void {
    this.quotaRefusals.inc({ ceiling });
  }

  /** Counts the waits of a pool from now on, under a fixed name (`operations`, `control`, `robot`…); returns the undo. */
  watchPool(name: string, db: Database): () => void {
    const pool = tarnOf(db);
    if (!pool) return () => undefined;
    this.pools.set(name, db);
    const started = new Map<number, bigint>();
    const request = (id: number) => void started.set(id, process.hrtime.bigint());
    const settle = (failed: boolean) => (id: number) => {
      const at = started.get(id);
      started.delete(id);
      if (at === undefined) return;
      this.poolWaits.observe({ pool: name }, Number(process.hrtime.bigint() - at) / 1e9);
      if (failed) this.poolFailures.inc({ pool: name });
    };
    const success = settle(false);
    const failure = settle(true);
    pool.on('acquireRequest', request);
    pool.on('acquireSuccess', success);
    pool.on('acquireFail', failure);
    return () => {
      pool.removeListener('acquireRequest', request);
      pool.removeListener('acquireSuccess', success);
      pool.removeListener('acquireFail', failure);
      this.pools.delete(name);
    };
  }
}

function tarnOf(db: Database): TarnPool | null {
  const pool = db.client.pool as Partial<TarnPool> | undefined;
  return pool && typeof pool.on === 'function' && typeof pool.numUsed === 'function' ? (pool as TarnPool) : null;
}
