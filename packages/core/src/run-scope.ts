/** Why a run was cut short: the caller's signal or the run's own deadline. */
export type CancelReason = 'aborted' | 'timeout';

/** Thrown (as a rejection) by {@link RunScope.race} and {@link RunScope.sleep} once the run is cancelled. */
export class Cancelled {
  constructor(readonly reason: CancelReason) {}
}

/**
 * The cancellation tree of one run, linked to the caller's signal and to the deadline. Each model call
 * and tool gets its own signal ({@link RunScope.child}), aborted with the run's `cause`. There is no
 * run-level `AbortController`: creating one costs microseconds per run and nothing reads it. `race` stops waiting for work that ignores
 * its signal, so nothing can hold the run past an abort or the deadline. `dispose()` removes the
 * listener on the caller's signal and clears the deadline timer: nothing is left behind.
 */
export class RunScope {
  /** Set once, when the run is cancelled. */
  reason: CancelReason | undefined;
  /** The abort reason handed to every call signal: the caller signal's reason, or a `TimeoutError`. */
  cause: unknown;
  /** `performance.now()` value of the deadline, or `Infinity`. */
  readonly deadline: number;
  // Pending races and sleeps: one listener on the run signal serves them all (not a listener each). The oldest
  // is kept in a field: most runs wait on one call at a time, and a Set emptied after every call would remake
  // its table each time. Others go to a Set made on first use, only while the field is taken (so the field
  // always holds the oldest, and they are told in the order they came).
  private waiter: ((reason: CancelReason) => void) | undefined;
  private waiters: Set<(reason: CancelReason) => void> | undefined;
  private readonly callerSignal: AbortSignal | undefined;
  // Without a caller signal, a deadline or a signal channel nothing can cancel the run: `race` has nothing to
  // race against.
  private readonly cancellable: boolean;
  private timer: ReturnType<typeof setTimeout> | undefined;
  // Made only when there is a caller signal to listen on (a closure per run otherwise made for nothing).
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(options: { signal?: AbortSignal; timeoutMs?: number; cancellable?: boolean }) {
    this.callerSignal = options.signal;
    this.cancellable = options.cancellable === true || options.signal !== undefined || options.timeoutMs !== undefined;
    this.deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.timeoutMs;
    if (options.signal?.aborted) {
      this.cancel('aborted', options.signal.reason);
      return;
    }
    if (options.signal) {
      this.onCallerAbort = () => this.cancel('aborted', this.callerSignal?.reason);
      // Not `{ once: true }`: cancel() and dispose() remove it, and an options object costs per run.
      options.signal.addEventListener('abort', this.onCallerAbort);
    }
    if (options.timeoutMs !== undefined) {
      const timeoutMs = options.timeoutMs;
      this.timer = setTimeout(
        () => this.cancel('timeout', new DOMException(`The run timed out after ${timeoutMs} ms`, 'TimeoutError')),
        timeoutMs,
      );
    }
  }

  /** Milliseconds left before the deadline (`Infinity` without one). */
  remainingMs(): number {
    return this.deadline - performance.now();
  }

  /** Settles like `promise`, or rejects with {@link Cancelled} as soon as the run is cancelled. */
  race<T>(promise: PromiseLike<T>): Promise<T> {
    if (!this.cancellable) return Promise.resolve(promise);
    if (this.reason) {
      // Nobody will wait for it any more: keep its late rejection from becoming an unhandled one.
      promise.then(undefined, noop);
      return Promise.reject(new Cancelled(this.reason));
    }
    return new Promise<T>((resolve, reject) => {
      const onCancel = (reason: CancelReason) => reject(new Cancelled(reason));
      this.addWaiter(onCancel);
      promise.then(
        (value) => {
          this.removeWaiter(onCancel);
          resolve(value);
        },
        (error: unknown) => {
          this.removeWaiter(onCancel);
          reject(error);
        },
      );
    });
  }

  /** Resolves after `ms`, or rejects with {@link Cancelled} at once when the run is cancelled. */
  sleep(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    return this.race(waited).finally(() => clearTimeout(timer));
  }

  /**
   * A signal for one model call or tool, aborted with the run. It is created on first access of
   * `signal` (most tools never look), and `release()` unlinks it from the run when the call is done:
   * a model or tool that forgets its listeners leaks them onto a signal that is dropped after the call,
   * never onto the run's own.
   */
  child(): CallSignal {
    return new CallSignal(this);
  }

  /** Registers `onCancel` to run once when the run is cancelled; returns the function that unregisters it. */
  onCancel(onCancel: (reason: CancelReason) => void): () => void {
    this.addWaiter(onCancel);
    return () => this.removeWaiter(onCancel);
  }

  private addWaiter(waiter: (reason: CancelReason) => void): void {
    if (this.waiter === undefined && (this.waiters === undefined || this.waiters.size === 0)) this.waiter = waiter;
    else {
      this.waiters ??= new Set();
      this.waiters.add(waiter);
    }
  }

  private removeWaiter(waiter: (reason: CancelReason) => void): void {
    if (this.waiter === waiter) this.waiter = undefined;
    else this.waiters?.delete(waiter);
  }

  /**
   * Cancels the run from inside (a `cancel` signal), as the caller's signal would: `reason` `'aborted'`, every
   * call signal aborted with `cause`. Needs a scope made `cancellable`; a second cancel changes nothing.
   */
  abort(cause: unknown): void {
    this.cancel('aborted', cause);
  }

  /** Removes the caller-signal listener and the deadline timer. Call once, when the run ends. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onCallerAbort) this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.waiter = undefined;
    this.waiters?.clear();
  }

  private cancel(reason: CancelReason, cause: unknown): void {
    if (this.reason) return;
    this.reason = reason;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onCallerAbort) this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.cause = cause;
    const waiters = [...(this.waiter === undefined ? [] : [this.waiter]), ...(this.waiters ?? [])];
    this.waiter = undefined;
    this.waiters?.clear();
    for (const waiter of waiters) waiter(reason);
  }
}

function noop(): void {}

/** A lazily created per-call signal: see {@link RunScope.child}. */
export class CallSignal {
  private controller: AbortController | undefined;
  private unlink: (() => void) | undefined;
  private released = false;

  constructor(private readonly scope: RunScope) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.scope.reason) controller.abort(this.scope.cause);
    else if (!this.released) this.unlink = this.scope.onCancel(() => controller.abort(this.scope.cause));
    return controller.signal;
  }

  release(): void {
    this.released = true;
    this.unlink?.();
    this.unlink = undefined;
  }
}
