/** A call the limiter refused: too many are running and waiting already. */
export class BusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BusyError';
  }
}

interface Waiting {
  exclusive: boolean;
  start(): void;
}

/**
 * Bounds tool calls in flight: at most `maxRunning` run at once, `exclusive` ones (tools that are not
 * read-only) one at a time among themselves, in arrival order; up to `maxWaiting` more wait their turn,
 * and past that a call is refused at once with a {@link BusyError}. A waiting call whose signal aborts
 * leaves the queue.
 */
export class CallLimiter {
  readonly #maxRunning: number;
  readonly #maxWaiting: number;
  #running = 0;
  #exclusiveRunning = false;
  readonly #waiting: Waiting[] = [];

  constructor(maxRunning: number, maxWaiting: number) {
    this.#maxRunning = maxRunning;
    this.#maxWaiting = maxWaiting;
  }

  #canStart(exclusive: boolean): boolean {
    return this.#running < this.#maxRunning && !(exclusive && this.#exclusiveRunning);
  }

  #begin(exclusive: boolean): void {
    this.#running++;
    if (exclusive) this.#exclusiveRunning = true;
  }

  #end(exclusive: boolean): void {
    this.#running--;
    if (exclusive) this.#exclusiveRunning = false;
    // The first waiting calls that may start now do, in order; a read-only call may pass an exclusive
    // one that waits for another exclusive call to end.
    for (let index = 0; index < this.#waiting.length && this.#running < this.#maxRunning; ) {
      const next = this.#waiting[index] as Waiting;
      if (!this.#canStart(next.exclusive)) {
        index++;
        continue;
      }
      this.#waiting.splice(index, 1);
      next.start();
    }
  }

  /** Runs `task` when its turn comes; rejects with `BusyError` when the queue is full, or with the abort reason. */
  async run<T>(task: () => Promise<T>, options: { exclusive: boolean; signal: AbortSignal }): Promise<T> {
    const { exclusive, signal } = options;
    // Every waiting call that could start has started (see #end): a call that can start now passes no one.
    if (!this.#canStart(exclusive)) {
      if (signal.aborted) throw signal.reason;
      if (this.#waiting.length >= this.#maxWaiting) {
        const running = `${this.#running} ${this.#running === 1 ? 'call is' : 'calls are'} running`;
        throw new BusyError(
          `Busy: ${running} and ${this.#waiting.length} waiting, the most this server takes (at most ${this.#maxRunning} at once, tools that are not read-only one at a time, ${this.#maxWaiting} waiting). Try again when a call has finished.`,
        );
      }
      await new Promise<void>((resolve, reject) => {
        const entry: Waiting = {
          exclusive,
          start: () => {
            signal.removeEventListener('abort', onAbort);
            this.#begin(exclusive);
            resolve();
          },
        };
        const onAbort = () => {
          const index = this.#waiting.indexOf(entry);
          if (index !== -1) this.#waiting.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.#waiting.push(entry);
      });
    } else this.#begin(exclusive);
    try {
      return await task();
    } finally {
      this.#end(exclusive);
    }
  }
}
