import { BridleError } from '@bridle/protocol';

const STORE_MARKER = Symbol.for('bridle.error.store');

/**
 * Why a store operation failed after the store opened:
 * - `invalid_input`: the arguments break a rule (a bad run id, an event without a `sequence`, ...); nothing was written.
 * - `conflict`: the journal already holds a different event at that `sequence`, or the event comes before the
 *   run's last journaled one (a journal is append-only); nothing of the batch was written.
 * - `corrupt`: a stored row cannot be read back (it names the run and `sequence`, or the session); other
 *   runs and sessions stay readable.
 * - `unavailable`: the database could not do it now (locked past the busy timeout, read-only, disk full,
 *   connection lost); nothing of the batch was written, so the call can be retried.
 * - `closed`: the store was closed.
 * - `fenced`: the append or lease renewal carried a fencing token older than the run's latest lease: another
 *   process took the run over; nothing was written, and the caller must stop writing for that run.
 */
export type StoreErrorCode = 'invalid_input' | 'conflict' | 'corrupt' | 'unavailable' | 'closed' | 'fenced';

/**
 * A store operation failed; `code` says why (see {@link StoreErrorCode}). Problems found while opening a
 * store (bad URL, unreachable server, newer schema) are `ConfigError`s instead.
 * Check with `StoreError.isInstance(value)`, which works across duplicate installs.
 */
export class StoreError extends BridleError {
  readonly [STORE_MARKER] = true;
  declare readonly code: `store_${StoreErrorCode}`;
  /** The cause category without the `store_` prefix. */
  readonly reason: StoreErrorCode;

  constructor(reason: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(`store_${reason}`, message, options);
    this.name = 'StoreError';
    this.reason = reason;
  }

  static override isInstance(value: unknown): value is StoreError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORE_MARKER] === true;
  }
}
