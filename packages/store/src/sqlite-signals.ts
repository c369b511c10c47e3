import type { RunSignal } from '@bridle/protocol';
import type BetterSqlite3 from 'better-sqlite3';
import { checkSignal, SignalHub } from './signal-hub';

/** How often a process with listening runs looks for new signals, in ms. */
export const SQLITE_SIGNAL_POLL_MS = 200;
/** Signals older than this are deleted by the next send, in ms: a signal is for a run running now. */
const SIGNAL_TTL_MS = 10 * 60 * 1000;

/**
 * Run signals over a SQLite file, across the processes that open it: a send inserts a row in
 * `bridle_run_signals`; a process whose runs listen reads the rows after the last one it saw, every
 * {@link SQLITE_SIGNAL_POLL_MS} ms (an indexed read of nothing, most of the time), and only then.
 */
export class SqliteSignals {
  readonly #hub = new SignalHub();
  readonly #insert: BetterSqlite3.Statement;
  readonly #prune: BetterSqlite3.Statement;
  readonly #after: BetterSqlite3.Statement;
  readonly #last: BetterSqlite3.Statement;
  #seen = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    db: BetterSqlite3.Database,
    private readonly write: (operation: () => void) => Promise<void>,
    private readonly onPollError: (error: unknown) => void,
  ) {
    this.#insert = db.prepare('INSERT INTO bridle_run_signals (run_id, data, created_at) VALUES (?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM bridle_run_signals WHERE created_at < ?');
    this.#after = db.prepare('SELECT id, run_id AS runId, data FROM bridle_run_signals WHERE id > ? ORDER BY id');
    this.#last = db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM bridle_run_signals');
  }

  async send(runId: string, signal: RunSignal): Promise<void> {
    const data = JSON.stringify(checkSignal(signal));
    const now = Date.now();
    await this.write(() => {
      this.#prune.run(now - SIGNAL_TTL_MS);
      this.#insert.run(runId, data, now);
    });
  }

  listen(runId: string, listener: (signal: RunSignal) => void): () => void {
    if (!this.#hub.listening) {
      // Only signals sent from now on: an older one was for a run that listened before.
      this.#seen = (this.#last.get() as { id: number }).id;
      this.#timer = setInterval(() => this.#poll(), SQLITE_SIGNAL_POLL_MS);
      // Listening never keeps a process alive: the run it listens for does.
      this.#timer.unref();
    }
    const remove = this.#hub.add(runId, listener);
    return () => {
      remove();
      if (!this.#hub.listening) this.#stopTimer();
    };
  }

  close(): void {
    this.#hub.clear();
    this.#stopTimer();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    let rows: { id: number; runId: string; data: string }[];
    try {
      rows = this.#after.all(this.#seen) as typeof rows;
    } catch (error) {
      this.onPollError(error);
      return;
    }
    for (const row of rows) {
      this.#seen = row.id;
      try {
        this.#hub.dispatch(row.runId, checkSignal(JSON.parse(row.data) as RunSignal));
      } catch {
        // A malformed row (not written by this store) is skipped.
      }
    }
  }
}
