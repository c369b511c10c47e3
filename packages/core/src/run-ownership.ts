import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { BridleError, type RunLease, type Store } from '@bridle/protocol';
import { JournalError } from './journal';
import { renewEvery } from './lease-renewals';
import type { OwnershipOptions } from './types';

/** Default lease of a journaled segment, in ms. */
export const DEFAULT_LEASE_MS = 30_000;

let processOwner: string | undefined;

/**
 * Marks the ownership options of a sub-agent's journaled run. Such a run only ever runs inside its parent's
 * segment, and the parent holds its own lease (fenced), so whoever runs the parent owns the child: its lease
 * is taken even while a previous owner's is unexpired (that owner, a process that died or lost the parent,
 * is fenced). Without it a worker that took over a parent from a killed worker waited for the child's lease.
 */
export const TAKE_OVER = Symbol('bridle.core.takeOver');

/** This process's default owner name: `<host>:<pid>:<random>` (the random part tells restarts apart). */
export function defaultOwner(): string {
  processOwner ??= `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  return processOwner;
}

/**
 * True when `owner` names a process of this machine (`<host>:<pid>:<random>`, the default owner) whose pid is
 * not running. Anything else (another host, a custom owner name, a live pid) is presumed alive.
 */
export function ownerIsGone(owner: string): boolean {
  const match = /^(.*):(\d+):[0-9a-f]+$/.exec(owner);
  if (match === null || match[1] !== os.hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const ENDED: Promise<void> = Promise.resolve();
const NO_OWNERSHIP: Promise<undefined> = Promise.resolve(undefined);

function ignore(): void {}

function fenced(runId: string, message: string): JournalError {
  return new JournalError(runId, new BridleError('store_fenced', message));
}

/**
 * The lease of one running segment: taken (or given) before its `run_start`, renewed every third of
 * `leaseMs` while it runs, and given up when the segment ends. Its token goes with every append; once the
 * store says another process took the run (a renewal or an append is fenced), `check()` and every append
 * reject with a `JournalError` of code `fenced`, so the loop stops before its next tool or model call.
 */
export class RunOwnership {
  #lease: RunLease;
  #lost: JournalError | undefined;
  /** `performance.now()` until which the lease certainly holds (renewed at least this recently). */
  #validUntil: number;
  readonly #stopRenewing: () => void;

  private constructor(
    readonly store: Store,
    lease: RunLease,
    readonly leaseMs: number,
    takenAt: number,
  ) {
    this.#lease = lease;
    this.#validUntil = takenAt + leaseMs;
    this.#stopRenewing = renewEvery(Math.max(1, Math.floor(leaseMs / 3)), this);
  }

  /**
   * Takes the run's lease in `store`, or uses `options.lease`. Undefined when the store keeps no leases.
   * Rejects with a `JournalError` (code `fenced`) while another process's lease is unexpired.
   */
  static take(store: Store, runId: string, options: OwnershipOptions | undefined): Promise<RunOwnership | undefined> {
    // Not an async function: the common case (the lease is free) is one `then` on the store's answer, without
    // an async function's frame and turn.
    if (typeof store.acquireLease !== 'function') return NO_OWNERSHIP;
    const leaseMs = options?.leaseMs ?? DEFAULT_LEASE_MS;
    const started = performance.now();
    if (options?.lease !== undefined) return Promise.resolve(new RunOwnership(store, options.lease, leaseMs, started));
    const owner = options?.owner ?? defaultOwner();
    const force = (options as { [TAKE_OVER]?: boolean } | undefined)?.[TAKE_OVER] === true;
    let answer: Promise<Awaited<ReturnType<NonNullable<Store['acquireLease']>>>>;
    try {
      answer = Promise.resolve(store.acquireLease(runId, force ? { owner, leaseMs, force } : { owner, leaseMs }));
    } catch (error) {
      // A store that throws instead of rejecting.
      return Promise.reject(new JournalError(runId, error));
    }
    return answer.then(
      (result) =>
        result.acquired
          ? new RunOwnership(store, result.lease, leaseMs, started)
          : RunOwnership.#held(store, runId, result, { owner, leaseMs, started }),
      (error: unknown) => {
        throw new JournalError(runId, error);
      },
    );
  }

  /** The lease is held by `result.owner`: taken over when that owner is a dead process of this machine, else fenced. */
  static async #held(
    store: Store,
    runId: string,
    held: { acquired: false; owner: string; leaseUntil: string },
    asked: { owner: string; leaseMs: number; started: number },
  ): Promise<RunOwnership> {
    const { owner, leaseMs, started } = asked;
    let result: Awaited<ReturnType<NonNullable<Store['acquireLease']>>> = held;
    if (ownerIsGone(held.owner)) {
      // The holder was a process of this machine that no longer exists (killed, crashed): waiting out its
      // lease would only delay `bridle resume` after a kill. Take the run over; that process can write nothing.
      try {
        result = await (store.acquireLease as NonNullable<Store['acquireLease']>)(runId, {
          owner,
          leaseMs,
          force: true,
        });
      } catch (error) {
        throw new JournalError(runId, error);
      }
    }
    if (!result.acquired) {
      throw fenced(
        runId,
        `run ${runId} is owned by ${result.owner} until ${result.leaseUntil} (it is running there); ` +
          'nothing was run here. Follow it, or resume it once its owner ended or its lease expired',
      );
    }
    return new RunOwnership(store, result.lease, leaseMs, started);
  }

  /** The fencing token appends carry. */
  get token(): number {
    return this.#lease.token;
  }

  /** The error every later write rejects with, once the run was taken over. */
  get lost(): JournalError | undefined {
    return this.#lost;
  }

  /** True when `check()` has work to do: the run was lost, or the lease was not renewed within `leaseMs`. */
  get stale(): boolean {
    return this.#lost !== undefined || performance.now() >= this.#validUntil;
  }

  /** Notes a refusal of the store: a fenced append means the run was taken over. */
  noteFailure(error: unknown): void {
    if (this.#lost === undefined && BridleError.isInstance(error) && error.code === 'store_fenced') {
      this.#lost = new JournalError(this.#lease.runId, error);
    }
  }

  /**
   * Resolves while the lease still holds: at once when it was renewed within `leaseMs` (by this process's
   * monotonic clock); else (the process was paused or starved past its lease) renews it first, rejecting
   * with a `JournalError` (code `fenced`) when another process took the run meanwhile.
   */
  async check(): Promise<void> {
    if (this.#lost) throw this.#lost;
    if (performance.now() < this.#validUntil) return;
    await this.#renew();
    if (this.#lost) throw this.#lost;
  }

  /** Renews the lease now (the renewal timer's call); a failure shows at the next `check()` or append. */
  renewNow(): void {
    this.#renew().catch(() => {});
  }

  async #renew(): Promise<void> {
    if (this.#lost) return;
    const asked = performance.now();
    try {
      this.#lease = await (this.store.renewLease as NonNullable<Store['renewLease']>)(this.#lease, this.leaseMs);
      this.#validUntil = asked + this.leaseMs;
    } catch (error) {
      this.noteFailure(error);
      // Another failure (the store unreachable): the lease may still hold; the next append or check tells.
      if (this.#lost === undefined && performance.now() >= this.#validUntil)
        throw new JournalError(this.#lease.runId, error);
    }
  }

  /** Stops renewing; with `release`, gives the lease up (errors ignored: it then expires by itself). Never rejects. */
  end(release: boolean): Promise<void> {
    this.#stopRenewing();
    if (!release || this.#lost !== undefined || typeof this.store.releaseLease !== 'function') return ENDED;
    try {
      return this.store.releaseLease(this.#lease).then(undefined, ignore);
    } catch {
      // A store that throws instead of rejecting: the lease expires by itself.
      return ENDED;
    }
  }
}
