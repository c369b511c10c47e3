import { BridleError, type RunEvent, type Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';

const JOURNAL_MARKER = Symbol.for('bridle.error.journal');

/**
 * The store could not append a run's events (code `journal_failed`; `cause` is the store's error).
 * `runAgent` and `resumeRun` reject with it: the run stops where its journal stops, as if its process
 * had died, and `resumeRun({ store, runId })` continues it once the store works again.
 */
export class JournalError extends BridleError {
  readonly [JOURNAL_MARKER] = true;
  constructor(
    readonly runId: string,
    cause: unknown,
  ) {
    super(
      'journal_failed',
      `The journal of run ${runId} could not be written (${errorMessage(cause, 'appendEvents failed')}), so the run stopped. Resume it with resumeRun({ store, runId: ${JSON.stringify(runId)} }) once the store works.`,
      { cause },
    );
    this.name = 'JournalError';
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
  #buffer: RunEvent[] = [];
  #tail: Promise<void> = Promise.resolve();

  constructor(
    readonly store: Store,
    readonly runId: string,
  ) {}

  /** Pass as an event observer. Events of other runs (a sub-agent's, forwarded) are not journaled here. */
  readonly observe = (event: RunEvent): void => {
    if (event.runId === this.runId) this.#buffer.push(event);
  };

  /** Appends the buffered events; resolves once they and all earlier ones are durable. Rejects with {@link JournalError}. */
  flush(): Promise<void> {
    if (this.#buffer.length > 0) {
      const events = this.#buffer;
      this.#buffer = [];
      const store = this.store;
      const runId = this.runId;
      this.#tail = this.#tail.then(() => store.appendEvents(runId, events));
    }
    return this.#tail.catch((error: unknown) => {
      throw JournalError.isInstance(error) ? error : new JournalError(this.runId, error);
    });
  }
}
