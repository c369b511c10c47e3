import { BridleError, type RunEvent, type Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { RunOwnership } from './run-ownership';

const JOURNAL_MARKER = Symbol.for('bridle.error.journal');

function isFenced(cause: unknown): boolean {
  return BridleError.isInstance(cause) && cause.code === 'store_fenced';
}

/**
 * The store could not append a run's events (`cause` is the store's error). `runAgent` and `resumeRun`
 * reject with it: the run stops where its journal stops, as if its process had died. Its `code`:
 * - `journal_failed`: the store failed; `resumeRun({ store, runId })` continues the run once it works again.
 * - `fenced`: another process owns the run now (it took the run's lease: this one was paused or cut off
 *   past its lease, or the run is running elsewhere); this process stopped before any further tool or
 *   model call, and nothing it did after losing the lease reached the journal. Nothing is to be done here.
 */
export class JournalError extends BridleError {
  readonly [JOURNAL_MARKER] = true;
  declare readonly code: 'journal_failed' | 'fenced';
  constructor(
    readonly runId: string,
    cause: unknown,
  ) {
    super(
      isFenced(cause) ? 'fenced' : 'journal_failed',
      isFenced(cause)
        ? `Run ${runId} stopped here: another process owns it now (${errorMessage(cause, 'the lease was taken')}). It goes on there; nothing is to be done in this process.`
        : `The journal of run ${runId} could not be written (${errorMessage(cause, 'appendEvents failed')}), so the run stopped. Resume it with resumeRun({ store, runId: ${JSON.stringify(runId)} }) once the store works.`,
      { cause },
    );
    this.name = 'JournalError';
  }

  /** True when the run was taken over by another owner (code `fenced`). */
  get fenced(): boolean {
    return this.code === 'fenced';
  }

  /**
   * True when the store refused the append as a conflict: another writer had appended other events at that
   * place (another process resumed or continued the run first). Nothing of this segment was journaled.
   */
  get conflict(): boolean {
    const { cause } = this as { cause?: unknown };
    return BridleError.isInstance(cause) && cause.code === 'store_conflict';
  }

  /** True for a `JournalError` from any copy of this package. */
  static override isInstance(value: unknown): value is JournalError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[JOURNAL_MARKER] === true;
  }
}

/**
 * The run's journal: an event observer that buffers the run's own events, and `flush()` appending
 * what was buffered since the last flush (so each step writes only its new events). Appends are
 * chained, never concurrent, so the journal keeps the events' order. A failed append fails every later
 * flush too: nothing is written after a gap.
 */
export class Journal {
  // The events buffered since the last flush are the first `#buffered` of `#buffer` (reused: a flush takes a copy
  // at its exact size, where a fresh array per flush grew room for 17 at its first push).
  readonly #buffer: RunEvent[] = [];
  #buffered = 0;
  // The last append, already mapped to a JournalError when it fails: an empty flush returns it as it is
  // (no promise made per flush, several times a step).
  #tail: Promise<void> = Promise.resolve();
  // True while an append is in flight (or has failed): the next append then waits behind it.
  #busy = false;

  constructor(
    readonly store: Store,
    readonly runId: string,
    /** The segment's lease, when the store keeps leases: appends carry its token. */
    readonly ownership?: RunOwnership,
  ) {}

  /** Pass as an event observer. Events of other runs (a sub-agent's, forwarded) are not journaled here. */
  readonly observe = (event: RunEvent): void => {
    if (event.runId === this.runId) this.#buffer[this.#buffered++] = event;
  };

  /**
   * True when a flush would have nothing to do: nothing buffered, no append in flight or failed, and no lease
   * to check. The loop then skips awaiting an empty flush (a turn of the microtask queue, each step).
   */
  get idle(): boolean {
    return this.#buffered === 0 && !this.#busy && !this.ownership?.stale;
  }

  /**
   * Appends the buffered events; resolves once they and all earlier ones are durable. Rejects with
   * {@link JournalError}. With a lease, an empty flush still checks that the lease holds (without a round
   * trip while it was renewed recently), so a flush before a model or tool call is a fence too.
   */
  flush(): Promise<void> {
    const ownership = this.ownership;
    if (this.#buffered > 0) {
      const events = this.#buffer.slice(0, this.#buffered);
      this.#buffered = 0;
      this.#tail = this.#busy ? this.#tail.then(() => this.#append(events)) : this.#append(events);
    } else if (ownership?.stale) {
      // The lease may have lapsed (this process was paused or starved past it): renew it, or learn that the
      // run was taken over, before the caller's next model or tool call.
      this.#tail = this.#tail.then(() => ownership.check());
    }
    return this.#tail;
  }

  #append(events: RunEvent[]): Promise<void> {
    this.#busy = true;
    const ownership = this.ownership;
    let appended: Promise<void>;
    try {
      if (ownership?.lost) throw ownership.lost;
      appended =
        ownership === undefined
          ? this.store.appendEvents(this.runId, events)
          : this.store.appendEvents(this.runId, events, { fencingToken: ownership.token });
    } catch (error) {
      // A store that throws instead of rejecting fails the journal the same way.
      appended = Promise.reject(error);
    }
    return Promise.resolve(appended).then(this.#appended, this.#failed);
  }

  // Made once per journal, not per append.
  readonly #appended = (): void => {
    this.#busy = false;
  };

  readonly #failed = (error: unknown): never => {
    this.ownership?.noteFailure(error);
    // `#busy` stays true: every later flush chains onto this rejection and fails with it.
    throw JournalError.isInstance(error) ? error : new JournalError(this.runId, error);
  };
}
