// Background work the service repeats on a timer (the sweep of expired rows): never two runs
// at once, the timer never keeps the process alive, a failed run is reported and the next one
// comes at its time, and stopping waits for the run in progress.
export interface PeriodicTask {
  /** Runs so far, finished or failed (for tests and logs). */
  readonly runs: number;
  stop(): Promise<void>;
}

export interface PeriodicTaskOptions {
  /** Delay before the first run (after the start's own work), then between the end of a run and the next. */
  firstAfterMs: number;
  everyMs: number;
  run: () => Promise<void>;
  onFailure: (err: unknown) => void;
}

export function startPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  let runs = 0;
  let stopped = false;
  let inFlight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    timer = null;
    inFlight = options
      .run()
      .catch((err: unknown) => options.onFailure(err))
      .finally(() => {
        runs += 1;
        inFlight = null;
        schedule(options.everyMs);
      });
  };
  schedule(options.firstAfterMs);
  return {
    get runs() {
      return runs;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await inFlight;
    },
  };
}
