import fs from 'node:fs';
import path from 'node:path';
import type {
  AcquireLeaseOptions,
  AcquireLeaseResult,
  AppendOptions,
  ClaimOrphansOptions,
  ListRunsQuery,
  ListSessionsQuery,
  ReadEventsQuery,
  RunEvent,
  RunLease,
  RunSignal,
  RunSummary,
  RunsOverview,
  RunsOverviewQuery,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import type BetterSqlite3 from 'better-sqlite3';
import { checkId } from './check-id';
import { type CheckedQuery, checkEventsQuery, checkOverviewQuery, checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeEvents, decodeRun, type JournalRow } from './decode-run';
import { GroupCommit } from './group-commit';
import { checkAcquire, checkClaim, checkRenew, checkToken, fencedError, leaseOf } from './lease-rules';
import type { StoreLimits } from './limits';
import { planAppend, startsOrEnds } from './plan-append';
import { type PreparedEvent, prepareEvents } from './prepare-events';
import { decodeSession, prepareSession, sessionRow } from './prepare-session';
import {
  type RunRecord,
  SESSION_COLUMNS,
  type SessionRecord,
  tenantCondition,
  toRunRow,
  toSessionSummary,
} from './run-record';
import { type AppendRecord, AppendRecords, leasedRecord } from './sqlite-append-records';
import { sqliteOpenError, sqliteOperationError } from './sqlite-faults';
import { sqliteListRunsQuery } from './sqlite-list-runs';
import { type SqliteOverview, sqliteOverview } from './sqlite-overview';
import { migrate } from './sqlite-schema';
import { SqliteSignals } from './sqlite-signals';
import { prepareStatements } from './sqlite-statements';
import { writeRunRow } from './sqlite-write-run';
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
    // A checkpoint copies the log into the file (and syncs both) in the commit that passes this many pages,
    // on the event loop. At SQLite's default of 1000 it took 10% of a journaling server's CPU (perf, /api/chat
    // under load); at 4000 (a log of up to 16 MiB) 6.5%: a page written again before the next checkpoint is
    // copied once. Durability is unchanged (the log is the durable copy).
    db.pragma('wal_autocheckpoint = 4000');
    migrate(db, file);
    return new SqliteStore(db, file, options);
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, file, options.busyTimeoutMs);
  }
}

class SqliteStore implements Store {
  readonly #db: Database;
  readonly #file: string;
  readonly #options: SqliteStoreOptions;
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #listRuns = new Map<string, Statement>();
  #overview: SqliteOverview | undefined;
  /** Writes (appends, session saves and deletes) are group-committed: one transaction per event-loop turn. */
  readonly #writes: GroupCommit;
  /** What this connection's appends last wrote of each running run, to skip reading it back (see the class). */
  readonly #records: AppendRecords;
  readonly #signals: SqliteSignals;
  #closed = false;

  constructor(db: Database, file: string, options: SqliteStoreOptions) {
    this.#db = db;
    this.#file = file;
    this.#options = options;
    this.#statements = prepareStatements(db);
    const records = new AppendRecords(db);
    this.#records = records;
    const transaction = db.transaction((body: () => void) => {
      records.sync();
      body();
    });
    // Called inside `transaction`, a better-sqlite3 transaction function runs as a savepoint.
    const savepoint = db.transaction((operation: () => unknown) => operation());
    this.#writes = new GroupCommit(
      {
        // IMMEDIATE takes the write lock first, so the busy timeout applies (a deferred transaction that must
        // upgrade its read lock can fail at once with SQLITE_BUSY).
        transaction: (body) => {
          try {
            transaction.immediate(body);
          } catch (error) {
            // Rolled back (or never begun): a record kept during it may describe rows that were not committed.
            records.clear();
            throw error;
          }
        },
        savepoint: (operation) => savepoint(operation) as never,
      },
      (error) => sqliteOperationError(error, file, options.busyTimeoutMs),
    );
    // A poll that fails (the file is locked past the busy timeout) is tried again at the next tick.
    this.#signals = new SqliteSignals(
      db,
      (operation) => this.#writes.write(operation),
      () => {},
    );
  }

  /** Sends a signal to run `runId` in every process that has this file open (they poll for it). */
  async sendRunSignal(runId: string, signal: RunSignal): Promise<void> {
    this.#open('sendRunSignal');
    checkId(runId, 'sendRunSignal: runId');
    await this.#signals.send(runId, signal);
  }

  /** Listens for the signals of run `runId` (this process polls the file while some run listens). */
  async listenRunSignals(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    this.#open('listenRunSignals');
    checkId(runId, 'listenRunSignals: runId');
    return this.#signals.listen(runId, listener);
  }

  async appendEvents(runId: string, events: RunEvent[], options?: AppendOptions): Promise<void> {
    this.#open('appendEvents');
    const prepared = prepareEvents(runId, events, this.#options.limits);
    if (prepared.length === 0) return;
    const token = options?.fencingToken;
    if (token !== undefined) checkToken('appendEvents', token);
    await this.#writes.write(() => this.#appendInTransaction(runId, prepared, token));
  }

  #appendInTransaction(runId: string, events: PreparedEvent[], token: number | undefined): void {
    const { getRunForAppend, getEvents, insertEvent } = this.#statements;
    const record = this.#records.get(runId) ?? (getRunForAppend.get(runId, runId, runId) as AppendRecord | undefined);
    // The fence is checked in the write transaction that appends: no lease can be taken between the two.
    if (token !== undefined && record !== undefined && token < record.fencing_token) {
      throw fencedError(runId, token, record.fencing_token);
    }
    const current = record && toRunRow(record);
    if (current !== undefined && record !== undefined && record.journal_last !== null) {
      // The row moves only when a segment starts or ends: the journal's last event says where the run is.
      if (record.journal_last > current.lastSequence) current.lastSequence = record.journal_last;
      if (record.journal_time !== null && record.journal_time > current.updatedAt)
        current.updatedAt = record.journal_time;
    }
    const existing = new Map<number, string>();
    const first = events[0] as PreparedEvent;
    if (current !== undefined && first.sequence <= current.lastSequence) {
      const to = Math.min(current.lastSequence, (events[events.length - 1] as PreparedEvent).sequence);
      for (const row of getEvents.all(runId, first.sequence, to) as JournalRow[]) existing.set(row.sequence, row.json);
    }
    const plan = planAppend(runId, events, current, existing);
    if (plan.row === undefined) return;
    for (const event of plan.insert) insertEvent.run(runId, event.sequence, event.type, event.json, event.time);
    const last = plan.insert[plan.insert.length - 1] as PreparedEvent;
    const movesRow = plan.insert.some(startsOrEnds);
    // The common append (no run_start or run_end) writes its events only: the run's row, and the by-time
    // index, would cost two more pages per commit (about 5 WAL frames instead of 3, and checkpoints as much
    // more often). listRuns reads a running run's time from its last event instead (sqlite-list-runs.ts).
    if (record !== undefined && current !== undefined && current.lastSequence >= 0 && !movesRow) {
      this.#records.set(runId, { ...record, journal_last: last.sequence, journal_time: last.time });
      return;
    }
    const written = writeRunRow(this.#statements, record, plan.row, last);
    // A run whose segment ended is dropped: its next append (a resume) comes after a lease is taken, read anew.
    if (written.status === 'running') this.#records.set(runId, written);
    else this.#records.drop(runId);
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const rows = this.#run(() => this.#statements.readJournal.all(runId) as JournalRow[]);
    return decodeRun(runId, rows);
  }

  async readEvents(runId: string, query: ReadEventsQuery): Promise<RunEvent[]> {
    this.#open('readEvents');
    checkId(runId, 'readEvents: runId');
    const { after, limit } = checkEventsQuery(query);
    const rows = this.#run(() => this.#statements.readEventsAfter.all(runId, after, limit) as JournalRow[]);
    return decodeEvents(runId, rows);
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const checked = checkQuery('listRuns', query);
    const { statement, parameters } = this.#listRunsStatement(checked);
    const records = this.#run(() => statement.all(...parameters) as RunRecord[]);
    return records.map((record) => toRunSummary(toRunRow(record)));
  }

  #listRunsStatement(query: CheckedQuery): { statement: Statement; parameters: unknown[] } {
    const { key, text, parameters } = sqliteListRunsQuery(query);
    let statement = this.#listRuns.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(text);
      this.#listRuns.set(key, statement);
    }
    return { statement, parameters };
  }

  async runsOverview(query: RunsOverviewQuery): Promise<RunsOverview> {
    this.#open('runsOverview');
    const window = checkOverviewQuery(query);
    this.#overview ??= sqliteOverview(this.#db);
    const overview = this.#overview;
    return this.#run(() => overview(window));
  }

  async acquireLease(runId: string, options: AcquireLeaseOptions): Promise<AcquireLeaseResult> {
    this.#open('acquireLease');
    const { owner, leaseMs, force } = checkAcquire(runId, options);
    return this.#writes.write((): AcquireLeaseResult => {
      const now = Date.now();
      const record = this.#statements.getRun.get(runId) as RunRecord | undefined;
      if (!force && record?.owner != null && record.lease_until != null && Number(record.lease_until) >= now) {
        return { acquired: false, owner: record.owner, leaseUntil: new Date(Number(record.lease_until)).toISOString() };
      }
      const token = (record?.fencing_token ?? 0) + 1;
      if (record === undefined) {
        const time = new Date(now).toISOString();
        this.#statements.insertLeasedRun.run(runId, time, time, owner, now + leaseMs, token);
        // A run's events are written only with its row (its first append upserts it): a new row has no journal.
        this.#records.set(runId, leasedRecord(runId, time, owner, now + leaseMs, token));
      } else {
        this.#statements.takeLease.run(owner, now + leaseMs, token, runId);
        this.#records.drop(runId);
      }
      return { acquired: true, lease: leaseOf(runId, owner, token, now + leaseMs) };
    });
  }

  async renewLease(lease: RunLease, leaseMs: number): Promise<RunLease> {
    this.#open('renewLease');
    const ms = checkRenew(lease, leaseMs);
    return this.#writes.write(() => {
      const until = Date.now() + ms;
      const record = this.#statements.getRun.get(lease.runId) as RunRecord | undefined;
      if (record?.owner == null || record.fencing_token !== lease.token) {
        throw fencedError(lease.runId, lease.token, record?.fencing_token ?? 0);
      }
      this.#statements.renewLease.run(until, lease.runId);
      this.#records.drop(lease.runId);
      return leaseOf(lease.runId, record.owner, lease.token, until);
    });
  }

  async releaseLease(lease: RunLease): Promise<void> {
    this.#open('releaseLease');
    await this.#writes.write(() => {
      this.#statements.releaseLease.run(lease.runId, lease.token);
      this.#records.drop(lease.runId);
    });
  }

  async claimOrphans(options: ClaimOrphansOptions): Promise<RunLease[]> {
    this.#open('claimOrphans');
    const { owner, leaseMs, limit } = checkClaim(options);
    return this.#writes.write(() => {
      const now = Date.now();
      const orphans = this.#statements.findOrphans.all(now, limit) as { run_id: string; fencing_token: number }[];
      return orphans.map((orphan) => {
        const token = orphan.fencing_token + 1;
        this.#statements.takeLease.run(owner, now + leaseMs, token, orphan.run_id);
        this.#records.drop(orphan.run_id);
        return leaseOf(orphan.run_id, owner, token, now + leaseMs);
      });
    });
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.#open('getSession');
    checkId(id, 'getSession: id');
    const row = this.#run(() => this.#statements.getSession.get(id) as { data: string } | undefined);
    return row && decodeSession(id, row.data);
  }

  async saveSession(session: StoredSession): Promise<void> {
    this.#open('saveSession');
    const row = sessionRow(prepareSession(session, this.#options.limits));
    await this.#writes.write(() => this.#statements.saveSession.run(...row));
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#open('deleteSession');
    checkId(id, 'deleteSession: id');
    const { deleteSession, forgetSession } = this.#statements;
    return this.#writes.write(() => deleteSession.run(id).changes > 0 || forgetSession.run(id).changes > 0);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    this.#open('listSessions');
    const { limit, before, tenant } = checkQuery('listSessions', query);
    const { listSessions, listSessionsBefore } = this.#statements;
    if (tenant !== undefined) {
      // Rare beside the plain listing (the server's tenants): built per call rather than kept prepared.
      const conditions = [
        tenantCondition(tenant),
        ...(before === undefined ? [] : ['updated_at < ?']),
        'message_count >= 0',
      ];
      const statement = this.#db.prepare(
        `SELECT ${SESSION_COLUMNS} FROM bridle_sessions WHERE ${conditions.join(' AND ')} ORDER BY updated_at DESC, id DESC LIMIT ?`,
      );
      const parameters = before === undefined ? [tenant, limit] : [tenant, before, limit];
      return (this.#run(() => statement.all(...parameters)) as SessionRecord[]).map(toSessionSummary);
    }
    const records = this.#run(
      () => (before === undefined ? listSessions.all(limit) : listSessionsBefore.all(before, limit)) as SessionRecord[],
    );
    return records.map(toSessionSummary);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Writes asked for before close() are committed, not dropped.
    this.#writes.flush();
    this.#signals.close();
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
