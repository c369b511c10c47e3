import fs from 'node:fs';
import path from 'node:path';
import type {
  ListRunsQuery,
  ListSessionsQuery,
  RunEvent,
  RunSummary,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import type BetterSqlite3 from 'better-sqlite3';
import { checkId } from './check-id';
import { type CheckedQuery, checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeRun, type JournalRow } from './decode-run';
import { GroupCommit } from './group-commit';
import type { StoreLimits } from './limits';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations';
import { planAppend } from './plan-append';
import { type PreparedEvent, prepareEvents } from './prepare-events';
import { decodeSession, prepareSession } from './prepare-session';
import {
  RUN_COLUMNS,
  type RunRecord,
  SESSION_COLUMNS,
  type SessionRecord,
  toRunRow,
  toSessionSummary,
  totalsColumn,
} from './run-record';
import { sqliteOpenError, sqliteOperationError } from './sqlite-faults';
import { SQLITE_MIGRATIONS } from './sqlite-migrations';
import { toRunSummary } from './summaries';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/** Options of a SQLite store. */
export interface SqliteStoreOptions {
  limits: StoreLimits;
  /** How long a write waits for another connection's lock before failing, in ms. */
  busyTimeoutMs: number;
  /** `full`: a commit survives power loss; `normal`: a crash of the process only (see `OpenStoreOptions`). */
  synchronous: 'full' | 'normal';
}

/** Opens (creating folders, file and schema as needed) a SQLite store; failures are `ConfigError`s with the fix. */
export async function openSqliteStore(file: string, options: SqliteStoreOptions): Promise<Store> {
  let Sqlite: typeof BetterSqlite3;
  try {
    Sqlite = (await import('better-sqlite3')).default;
  } catch (error) {
    throw sqliteOpenError(error, file, options.busyTimeoutMs);
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new ConfigError(
      `cannot create the folder of SQLite store ${file}: ${(error as Error).message}; pick a writable path (--store / BRIDLE_STORE)`,
      { cause: error },
    );
  }
  let db: Database | undefined;
  try {
    db = new Sqlite(file, { timeout: options.busyTimeoutMs });
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (String(mode).toLowerCase() !== 'wal') {
      throw new ConfigError(
        `SQLite file ${file} cannot use write-ahead logging (journal mode stayed ${mode}); put it on a local disk`,
      );
    }
    db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    migrate(db, file);
    return new SqliteStore(db, file, options);
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, file, options.busyTimeoutMs);
  }
}

function schemaVersion(db: Database): number {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(SCHEMA_VERSION_TABLE) as { name: string } | undefined;
  if (table === undefined) return 0;
  const row = db.prepare(`SELECT MAX(version) AS version FROM ${SCHEMA_VERSION_TABLE}`).get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/**
 * Applies pending migrations under SQLite's write lock (BEGIN IMMEDIATE), so two processes opening one new
 * file at once migrate it once. When nothing is pending it still writes a row and rolls it back: that is
 * how a read-only or locked file is found at open rather than at the first append (BEGIN IMMEDIATE alone
 * succeeds on a file SQLite opened read-only).
 */
function migrate(db: Database, file: string): void {
  pendingMigrations(SQLITE_MIGRATIONS, schemaVersion(db), file);
  db.exec('BEGIN IMMEDIATE');
  try {
    const pending = pendingMigrations(SQLITE_MIGRATIONS, schemaVersion(db), file);
    if (pending.length === 0) {
      db.prepare(`INSERT INTO ${SCHEMA_VERSION_TABLE} (version, applied_at) VALUES (-1, 'write probe')`).run();
      db.exec('ROLLBACK');
      return;
    }
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)`,
    );
    const record = db.prepare(`INSERT INTO ${SCHEMA_VERSION_TABLE} (version, applied_at) VALUES (?, ?)`);
    for (const migration of pending) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

class SqliteStore implements Store {
  readonly #db: Database;
  readonly #file: string;
  readonly #options: SqliteStoreOptions;
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #listRuns = new Map<string, Statement>();
  /** Writes (appends, session saves and deletes) are group-committed: one transaction per event-loop turn. */
  readonly #writes: GroupCommit;
  #closed = false;

  constructor(db: Database, file: string, options: SqliteStoreOptions) {
    this.#db = db;
    this.#file = file;
    this.#options = options;
    this.#statements = prepareStatements(db);
    const transaction = db.transaction((body: () => void) => body());
    // Called inside `transaction`, a better-sqlite3 transaction function runs as a savepoint.
    const savepoint = db.transaction((operation: () => unknown) => operation());
    this.#writes = new GroupCommit(
      {
        // IMMEDIATE takes the write lock first, so the busy timeout applies (a deferred transaction that must
        // upgrade its read lock can fail at once with SQLITE_BUSY).
        transaction: (body) => transaction.immediate(body),
        savepoint: (operation) => savepoint(operation) as never,
      },
      (error) => sqliteOperationError(error, file, options.busyTimeoutMs),
    );
  }

  async appendEvents(runId: string, events: RunEvent[]): Promise<void> {
    this.#open('appendEvents');
    const prepared = prepareEvents(runId, events, this.#options.limits);
    if (prepared.length === 0) return;
    await this.#writes.write(() => this.#appendInTransaction(runId, prepared));
  }

  #appendInTransaction(runId: string, events: PreparedEvent[]): void {
    const { getRun, getEvents, insertEvent, upsertRun, advanceRun } = this.#statements;
    const record = getRun.get(runId) as RunRecord | undefined;
    const current = record && toRunRow(record);
    const existing = new Map<number, string>();
    const first = events[0] as PreparedEvent;
    if (current !== undefined && first.sequence <= current.lastSequence) {
      const to = Math.min(current.lastSequence, (events[events.length - 1] as PreparedEvent).sequence);
      for (const row of getEvents.all(runId, first.sequence, to) as JournalRow[]) existing.set(row.sequence, row.json);
    }
    const plan = planAppend(runId, events, current, existing);
    if (plan.row === undefined) return;
    for (const event of plan.insert) insertEvent.run(runId, event.sequence, event.type, event.json);
    const row = plan.row;
    if (current !== undefined && !plan.insert.some(startsOrEnds)) {
      // The common append (no run_start or run_end): only the time and the last sequence move, so SQLite
      // rewrites the row and the by-time index and leaves the status and session indexes untouched.
      advanceRun.run(row.updatedAt, row.lastSequence, runId);
      return;
    }
    upsertRun.run(
      runId,
      row.status,
      row.model ?? null,
      row.sessionId ?? null,
      row.createdAt,
      row.updatedAt,
      row.lastSequence,
      totalsColumn(row),
    );
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const rows = this.#run(() => this.#statements.readJournal.all(runId) as JournalRow[]);
    return decodeRun(runId, rows);
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const checked = checkQuery('listRuns', query);
    const { statement, parameters } = this.#listRunsStatement(checked);
    const records = this.#run(() => statement.all(...parameters) as RunRecord[]);
    return records.map((record) => toRunSummary(toRunRow(record)));
  }

  #listRunsStatement(query: CheckedQuery): { statement: Statement; parameters: unknown[] } {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (query.status !== undefined) {
      conditions.push('status = ?');
      parameters.push(query.status);
    }
    if (query.sessionId !== undefined) {
      conditions.push('session_id = ?');
      parameters.push(query.sessionId);
    }
    if (query.before !== undefined) {
      conditions.push('updated_at < ?');
      parameters.push(query.before);
    }
    parameters.push(query.limit);
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    let statement = this.#listRuns.get(where);
    if (statement === undefined) {
      statement = this.#db.prepare(
        `SELECT ${RUN_COLUMNS} FROM bridle_runs ${where} ORDER BY updated_at DESC, run_id DESC LIMIT ?`,
      );
      this.#listRuns.set(where, statement);
    }
    return { statement, parameters };
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.#open('getSession');
    checkId(id, 'getSession: id');
    const row = this.#run(() => this.#statements.getSession.get(id) as { data: string } | undefined);
    return row && decodeSession(id, row.data);
  }

  async saveSession(session: StoredSession): Promise<void> {
    this.#open('saveSession');
    const prepared = prepareSession(session, this.#options.limits);
    await this.#writes.write(() =>
      this.#statements.saveSession.run(
        prepared.id,
        prepared.json,
        prepared.messageCount,
        prepared.createdAt,
        prepared.updatedAt,
      ),
    );
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#open('deleteSession');
    checkId(id, 'deleteSession: id');
    return this.#writes.write(() => this.#statements.deleteSession.run(id).changes > 0);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    this.#open('listSessions');
    const { limit, before } = checkQuery('listSessions', query);
    const { listSessions, listSessionsBefore } = this.#statements;
    const records = this.#run(
      () => (before === undefined ? listSessions.all(limit) : listSessionsBefore.all(before, limit)) as SessionRecord[],
    );
    return records.map(toSessionSummary);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Writes asked for before close() are committed, not dropped.
    this.#writes.flush();
    this.#closed = true;
    this.#db.close();
  }

  #open(method: string): void {
    if (this.#closed) throw closedError(method, `sqlite:${this.#file}`);
  }

  #run<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw sqliteOperationError(error, this.#file, this.#options.busyTimeoutMs);
    }
  }
}

/** Whether an event opens or closes a segment (only those change a run's row beyond its time and sequence). */
function startsOrEnds(event: PreparedEvent): boolean {
  return event.type === 'run_start' || event.type === 'run_end';
}

function prepareStatements(db: Database) {
  return {
    getRun: db.prepare(`SELECT ${RUN_COLUMNS} FROM bridle_runs WHERE run_id = ?`),
    getEvents: db.prepare(
      'SELECT sequence, data AS json FROM bridle_run_events WHERE run_id = ? AND sequence >= ? AND sequence <= ?',
    ),
    insertEvent: db.prepare('INSERT INTO bridle_run_events (run_id, sequence, type, data) VALUES (?, ?, ?, ?)'),
    upsertRun: db.prepare(
      'INSERT INTO bridle_runs (run_id, status, model, session_id, created_at, updated_at, last_sequence, totals) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, ' +
        'model = excluded.model, session_id = excluded.session_id, updated_at = excluded.updated_at, ' +
        'last_sequence = excluded.last_sequence, totals = excluded.totals',
    ),
    advanceRun: db.prepare('UPDATE bridle_runs SET updated_at = ?, last_sequence = ? WHERE run_id = ?'),
    readJournal: db.prepare('SELECT sequence, data AS json FROM bridle_run_events WHERE run_id = ? ORDER BY sequence'),
    getSession: db.prepare('SELECT data FROM bridle_sessions WHERE id = ?'),
    saveSession: db.prepare(
      'INSERT INTO bridle_sessions (id, data, message_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET data = excluded.data, message_count = excluded.message_count, ' +
        'created_at = excluded.created_at, updated_at = excluded.updated_at',
    ),
    deleteSession: db.prepare('DELETE FROM bridle_sessions WHERE id = ?'),
    listSessions: db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM bridle_sessions ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    listSessionsBefore: db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM bridle_sessions WHERE updated_at < ? ` +
        'ORDER BY updated_at DESC, id DESC LIMIT ?',
    ),
  };
}
