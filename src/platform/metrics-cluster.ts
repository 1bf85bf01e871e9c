// The metrics of a machine's processes as one: the worker that receives a scrape asks the
// primary, which asks every worker for its counts (and adds its own, the background roles'
// pools), sums them with prom-client's AggregatorRegistry and answers the text. A worker that
// does not answer within the delay is left out of that scrape rather than failing it.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { ProcessMetrics } from './metrics.js';

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

const REQUEST = 'batidata:metrics-request';
const ANSWER = 'batidata:metrics-answer';
const COLLECT = 'batidata:metrics-collect';
const COLLECTED = 'batidata:metrics-collected';
/** A scrape waits this long at most for a worker's counts. */
const WORKER_DELAY_MS = 3000;

interface Message {
  type?: string;
  id?: number;
  text?: string;
  metrics?: Snapshot;
}

/** Primary: answers the workers' requests for the machine's metrics. `own`: the primary's own counts, if any. */
export function answerClusterMetrics(own: ProcessMetrics | null): () => void {
  let next = 0;
  const waiting = new Map<number, (metrics: Snapshot | null) => void>();
  const collect = (worker: Worker): Promise<Snapshot | null> =>
    new Promise((resolve) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(null);
      }, WORKER_DELAY_MS);
      waiting.set(id, (metrics) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(metrics);
      });
      try {
        worker.send({ type: COLLECT, id });
      } catch {
        waiting.get(id)?.(null);
      }
    });
  const onMessage = (worker: Worker, message: Message) => {
    if (message?.type === COLLECTED && typeof message.id === 'number') waiting.get(message.id)?.(message.metrics ?? null);
    if (message?.type !== REQUEST || typeof message.id !== 'number') return;
    const id = message.id;
    void (async () => {
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected());
      const snapshots = [...(await Promise.all(workers.map(collect))), ...(own ? [(await own.registry.getMetricsAsJSON()) as Snapshot] : [])];
      const text = await AggregatorRegistry.aggregate(snapshots.filter((s): s is Snapshot => s !== null)).metrics();
      if (worker.isConnected()) worker.send({ type: ANSWER, id, text });
    })().catch(() => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id, text: null });
    });
  };
  cluster.on('message', onMessage);
  return () => void cluster.off('message', onMessage);
}

/**
 * Worker: gives the primary this process' counts when it asks, and returns how to read the
 * machine's metrics (this process' alone should the primary not answer).
 */
export function clusterWorkerMetrics(metrics: ProcessMetrics): { read: () => Promise<string>; stop: () => void } {
  let next = 0;
  const waiting = new Map<number, (text: string | null) => void>();
  const onMessage = (message: Message) => {
    if (message?.type === COLLECT && typeof message.id === 'number') {
      const id = message.id;
      void metrics.registry.getMetricsAsJSON().then(
        (snapshot) => process.send?.({ type: COLLECTED, id, metrics: snapshot }),
        () => process.send?.({ type: COLLECTED, id, metrics: null }),
      );
    }
    if (message?.type === ANSWER && typeof message.id === 'number') waiting.get(message.id)?.(message.text ?? null);
  };
  process.on('message', onMessage);
  const read = async (): Promise<string> => {
    const text = await new Promise<string | null>((resolve) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(null);
      }, WORKER_DELAY_MS * 2);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(answer);
      });
      if (!process.send || !process.connected) waiting.get(id)?.(null);
      else process.send({ type: REQUEST, id });
    });
    return text ?? metrics.registry.metrics();
  };
  return { read, stop: () => void process.off('message', onMessage) };
}
