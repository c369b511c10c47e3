/**
 * A push-to-pull bridge: a run's observer pushes, an async generator pulls. Unbounded, since a run's events
 * are already bounded by the run (and the SSE stream drops a client that reads too slowly).
 */
export class EventChannel<T> {
  readonly #items: T[] = [];
  #waiting: (() => void) | undefined;
  #ended = false;
  #error: unknown;
  #failed = false;

  push(item: T): void {
    if (this.#ended) return;
    this.#items.push(item);
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  fail(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    this.end();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  async *drain(): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#ended) {
        if (this.#failed) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }
}
