// A share of a scarce resource per kind of work: at most `share` runs of one key at a time,
// the next ones waiting their turn in order, each at most `waitMs`. Used for the database
// connections of the calls: calls of one kind stuck on a slow or locked table hold at most
// their share, the others keep the rest.

/** A run waited for its turn longer than the bulkhead allows. */
export class BulkheadTimeoutError extends Error {
  override readonly name = 'BulkheadTimeoutError';
  constructor(readonly waitedMs: number) {
    super(`file d’attente pleine depuis ${waitedMs} ms`);
  }
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface Lane {
  running: number;
  waiting: Waiter[];
}

export class Bulkhead {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly share: number,
    private readonly waitMs: number,
  ) {
    if (!Number.isInteger(share) || share < 1) throw new RangeError('share: un entier ≥ 1 est attendu');
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    if (lane.running >= this.share) await this.turn(lane);
    else lane.running++;
    try {
      return await work();
    } finally {
      this.release(key, lane);
    }
  }

  /** Waits until a running work of the lane ends and hands its place over (running stays counted). */
  private turn(lane: Lane): Promise<void> {
    const queuedAt = Date.now();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const i = lane.waiting.indexOf(waiter);
          if (i !== -1) lane.waiting.splice(i, 1);
          reject(new BulkheadTimeoutError(Date.now() - queuedAt));
        }, this.waitMs),
      };
      lane.waiting.push(waiter);
    });
  }

  private release(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next.start();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(key);
  }

  /** Runs of `key` under way and waiting (for tests and metrics). */
  load(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }
}
