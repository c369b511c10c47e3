/**
 * A buffered async iterable with one consumer: items pushed before anyone iterates are kept; `end()`
 * finishes it (with an error to throw, or cleanly). Breaking out of the loop (`return()`) stops
 * buffering: later pushes are dropped, and nothing else is affected.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #failWaiter: ((error: unknown) => void) | undefined;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #left = false;
  #iterated = false;

  push(item: T): void {
    if (this.#ended || this.#left) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      this.#failWaiter = undefined;
      waiter({ value: item, done: false });
    } else this.#items.push(item);
  }

  /** No more items; with `failure`, the consumer's loop throws `failure.error` after the buffered items. */
  end(failure?: { error: unknown }): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#failure = failure;
    const waiter = this.#waiter;
    const failWaiter = this.#failWaiter;
    this.#waiter = undefined;
    this.#failWaiter = undefined;
    if (failure && failWaiter) failWaiter(failure.error);
    else waiter?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new TypeError('This stream can be iterated once: keep one for await loop per stream.');
    this.#iterated = true;
    return {
      next: () => {
        if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
        if (this.#ended || this.#left) {
          const failure = this.#failure;
          this.#failure = undefined;
          return failure ? Promise.reject(failure.error) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.#waiter = resolve;
          this.#failWaiter = reject;
        });
      },
      return: () => {
        this.#left = true;
        this.#items = [];
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
