/** Options of {@link watchForWorkers}. */
export interface WorkerWatchOptions {
  /** The workers consuming the queue now (BullMQ's `queue.getWorkers()`); a failure skips that check. */
  workers: () => Promise<unknown[]>;
  /** When (ms, on `now`'s clock) an item last settled, or the items were queued. */
  lastSettled: () => number;
  /** Called once per stall: nothing settled for `afterMs` and no worker consumes the queue. */
  notice: () => void;
  /** Default 5000 ms. */
  afterMs?: number;
  /** How often to look, in ms; default 1000. */
  everyMs?: number;
  now?: () => number;
}

/**
 * Watches a producer's queue: when nothing settled for `afterMs` and BullMQ reports no worker, calls
 * `notice` (once, until a worker is seen again). Returns the function that stops watching.
 */
export function watchForWorkers(options: WorkerWatchOptions): () => void {
  const now = options.now ?? Date.now;
  const afterMs = options.afterMs ?? 5000;
  let told = false;
  let checking = false;
  const timer = setInterval(async () => {
    if (checking || now() - options.lastSettled() < afterMs) return;
    checking = true;
    try {
      const workers = await options.workers();
      if (workers.length > 0) told = false;
      else if (!told) {
        told = true;
        options.notice();
      }
    } catch {
      // Redis may refuse CLIENT LIST (a managed service): then nothing is said.
    } finally {
      checking = false;
    }
  }, options.everyMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
