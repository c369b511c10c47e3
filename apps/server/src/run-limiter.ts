/** A place among the running runs. Release it exactly once when the run has ended. */
export interface RunSlot {
  /** Aborted by `abort` or when the server gives up on running work (end of the shutdown grace period). */
  readonly signal: AbortSignal;
  /** Aborts this run's signal (a client went away, a job was cancelled). */
  abort(reason: unknown): void;
  release(): void;
}

interface Waiter {
  resolve(slot: RunSlot | undefined): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Bounds the runs in flight. Chat requests take a slot with `tryAcquire` (refused at once when full:
 * the route answers 503); batch items wait their turn with `acquire` (first come, first served).
 * `abortAll` aborts every running slot; `idle()` resolves when none is left.
 */
export class RunLimiter {
  readonly #max: number;
  readonly #running = new Set<AbortController>();
  // Each connection's latest controller: an AbortSignal costs microseconds to create, and a keep-alive
  // connection runs one request after another. A run takes it when no run holds it and it is not aborted
  // (two pipelined requests get two); it stays the connection's until an abort makes it unusable.
  readonly #byConnection = new WeakMap<object, AbortController>();
  readonly #waiters: Waiter[] = [];
  // Runs in flight per tenant (only those taken with a tenant).
  readonly #byTenant = new Map<string, number>();
  #idle: (() => void)[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  /** Runs in flight now. */
  get active(): number {
    return this.#running.size;
  }

  /**
   * A slot, or undefined when `max` runs are already in flight. With `connection` (the request's socket),
   * the slot's signal may be one an earlier run on that connection used and left unaborted, with no
   * listener left on it: pass it only when whatever listens to the signal removes its listeners.
   */
  tryAcquire(connection?: object): RunSlot | undefined {
    return this.#running.size < this.#max ? this.#slot(connection) : undefined;
  }

  /**
   * {@link tryAcquire} for a run of `tenant`, which may hold at most `perTenant` slots at once: answers the
   * slot, `'full'` (every slot is taken) or `'tenant'` (the tenant holds its share), so one tenant's flood
   * leaves the other slots to the others.
   */
  tryAcquireFor(tenant: string, perTenant: number, connection?: object): RunSlot | 'full' | 'tenant' {
    if (this.#running.size >= this.#max) return 'full';
    const held = this.#byTenant.get(tenant) ?? 0;
    if (held >= perTenant) return 'tenant';
    const slot = this.#slot(connection, tenant);
    this.#byTenant.set(tenant, held + 1);
    return slot;
  }

  /** Waits for a slot; resolves undefined if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<RunSlot | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.#running.size < this.#max && this.#waiters.length === 0) return Promise.resolve(this.#slot());
    return new Promise((resolve) => {
      const waiter: Waiter = { resolve, ...(signal ? { signal } : {}) };
      if (signal) {
        waiter.onAbort = () => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          resolve(undefined);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
    });
  }

  /** Aborts every run in flight with `reason`. */
  abortAll(reason: unknown): void {
    for (const controller of this.#running) controller.abort(reason);
  }

  /** Resolves when no run is in flight. */
  idle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #slot(connection?: object, tenant?: string): RunSlot {
    let controller = connection && this.#byConnection.get(connection);
    if (controller === undefined || controller.signal.aborted || this.#running.has(controller)) {
      controller = new AbortController();
      if (connection) this.#byConnection.set(connection, controller);
    }
    this.#running.add(controller);
    return new Slot(controller, tenant, this.#released);
  }

  /** Gives back the place of a released slot (called once per slot). */
  readonly #released = (controller: AbortController, tenant: string | undefined): void => {
    if (tenant !== undefined) {
      const left = (this.#byTenant.get(tenant) ?? 1) - 1;
      if (left === 0) this.#byTenant.delete(tenant);
      else this.#byTenant.set(tenant, left);
    }
    this.#running.delete(controller);
    this.#next();
  };

  #next(): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.#slot());
      return;
    }
    if (this.#running.size === 0) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }
}

/** One slot: an object of one class (no closures per run), released at most once. */
class Slot implements RunSlot {
  readonly #controller: AbortController;
  readonly #tenant: string | undefined;
  #release: ((controller: AbortController, tenant: string | undefined) => void) | undefined;

  constructor(
    controller: AbortController,
    tenant: string | undefined,
    release: (controller: AbortController, tenant: string | undefined) => void,
  ) {
    this.#controller = controller;
    this.#tenant = tenant;
    this.#release = release;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  release(): void {
    const release = this.#release;
    if (release === undefined) return;
    this.#release = undefined;
    release(this.#controller, this.#tenant);
  }
}
