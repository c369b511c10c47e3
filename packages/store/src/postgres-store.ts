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
import type { Pool, PoolClient, QueryResult } from 'pg';
import { checkId } from './check-id';
import { checkEventsQuery, checkOverviewQuery, checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeEvents, decodeRun, type JournalRow } from './decode-run';
import { checkToken, fencedError } from './lease-rules';
import type { StoreLimits } from './limits';
import { applyEvents, planAppend, type RunRow, startsOrEnds } from './plan-append';
import { postgresOperationError } from './postgres-faults';
import { acquirePostgresLease, claimPostgresOrphans, renewPostgresLease } from './postgres-leases';
import { listRunsQuery } from './postgres-list-runs';
import { MidSegmentAppend } from './postgres-mid-segment';
import { postgresOverview } from './postgres-overview';
import { openPostgresPool } from './postgres-pool';
import { quote } from './postgres-schema';
import {
  deletePostgresSession,
  getPostgresSession,
  listPostgresSessions,
  type PostgresQuery,
  savePostgresSession,
} from './postgres-sessions';
import { PostgresSignals } from './postgres-signals';
import { statementNames, statements } from './postgres-statements';
import { type PreparedEvent, prepareEvents } from './prepare-events';
import { type RunRecord, toRunRow, totalsColumn } from './run-record';
import { toRunSummary } from './summaries';

/** Options of a Postgres store. */
export interface PostgresStoreOptions {
  connectionString: string;
  /** The URL with credentials redacted, for messages. */
  redacted: string;
  /** The schema holding Bridle's tables (created when missing). */
  schema: string;
  limits: StoreLimits;
  /** Bound on opening a connection (and on waiting for a free one in the pool), in ms. */
  connectTimeoutMs: number;
  /** Most connections the pool opens. */
  poolSize: number;
  /** `'normal'`: appends commit with `synchronous_commit = off`; `'full'`: with the server's setting. */
  synchronous: 'full' | 'normal';
}

/** Postgres' SQLSTATE for a unique violation (an event already at that sequence). */
const UNIQUE_VIOLATION = '23505';

/** Runs whose row an append remembers (for its one-statement path); the least recently appended go first. */
const KNOWN_ROWS = 10_000;

/** Opens a Postgres store: connects (bounded by `connectTimeoutMs`) and applies migrations; failures are `ConfigError`s. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  return new PostgresStore(await openPostgresPool(options), options);
}

class PostgresStore implements Store {
  readonly #pool: Pool;
  readonly #options: PostgresStoreOptions;
  readonly #where: string;
  readonly #sql: ReturnType<typeof statements>;
  /** The prepared name of each fixed statement's text (others, built per query, go unnamed). */
  readonly #names: Map<string, string>;
  /** The insert-only append's statements (by batch size). */
  readonly #midSegment: MidSegmentAppend;
  /**
   * The row of each run this process wrote last, as it is stored (its last sequence is the last one written to
   * the row: at a segment's start or end). An append that starts or ends a segment of a run that is here is
   * one conditional statement (it applies only while the row's last sequence and fencing token are still
   * these); one that finds the row changed (another process wrote it, or took the lease) takes the
   * transaction, which reads the row afresh.
   */
  readonly #known = new Map<string, RunRow>();
  readonly #signals: PostgresSignals;
  readonly #run: PostgresQuery = (text, values) => this.#query(text, values);
  #closing: Promise<void> | undefined;

  constructor(pool: Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#options = options;
    this.#where = options.schema === 'public' ? options.redacted : `${options.redacted} (schema ${options.schema})`;
    this.#sql = statements(quote(options.schema));
    this.#names = statementNames(this.#sql);
    this.#midSegment = new MidSegmentAppend(quote(options.schema), this.#names);
    this.#signals = new PostgresSignals(pool, options.schema, this.#where);
  }

  /** Sends a signal to run `runId` in every process listening on this database and schema (`NOTIFY`). */
  async sendRunSignal(runId: string, signal: RunSignal): Promise<void> {
    this.#open('sendRunSignal');
    checkId(runId, 'sendRunSignal: runId');
    await this.#signals.send(runId, signal);
  }

  /** Listens (`LISTEN`, on one pooled connection while some run listens) for the signals of run `runId`. */
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
    if (!prepared.some(startsOrEnds)) {
      // The common append: its events only, one statement. The remembered row (if any) stays true.
      if (await this.#appendMidSegment(runId, prepared, token)) return;
    } else {
      const known = this.#known.get(runId);
      this.#known.delete(runId);
      if (
        known !== undefined &&
        (prepared[0] as PreparedEvent).sequence > known.lastSequence &&
        (token === undefined || token >= known.fencingToken)
      ) {
        const row = applyEvents(runId, known, prepared);
        const updatedAt = await this.#appendKnown(runId, prepared, row, known, token);
        if (updatedAt !== undefined) return this.#remember({ ...row, updatedAt });
      }
    }
    await this.#appendInTransaction(runId, prepared, token);
  }

  /**
   * The insert-only append of events that neither start nor end a segment: false when it wrote nothing (no
   * journal yet, a newer lease, an event at or below the journal's last, or another writer's event at one of
   * the sequences: the transaction then decides).
   */
  async #appendMidSegment(runId: string, events: PreparedEvent[], token: number | undefined): Promise<boolean> {
    const { text, values } = this.#midSegment.query(runId, events, token);
    const inserted = await this.#write(text, values);
    return inserted !== undefined && inserted.rowCount === events.length;
  }

  /** The one-statement append over a remembered row: the row's new time, or undefined when it changed since (nothing written). */
  async #appendKnown(
    runId: string,
    events: PreparedEvent[],
    row: RunRow,
    known: RunRow,
    token: number | undefined,
  ): Promise<string | undefined> {
    const result = await this.#write<{ updated_at: string }>(this.#sql.appendKnown, [
      runId,
      events.map((event) => event.sequence),
      events.map((event) => event.type),
      events.map((event) => event.json),
      row.status,
      row.model ?? null,
      row.sessionId ?? null,
      row.createdAt,
      row.updatedAt,
      row.lastSequence,
      totalsColumn(row),
      known.lastSequence,
      token ?? null,
      row.tenant ?? null,
      events.map((event) => event.time),
    ]);
    return result?.rows[0]?.updated_at;
  }

  /**
   * A one-statement append: its result, or undefined when another writer's event took one of its sequences
   * since the statement began (a unique violation: nothing of it was written, and the transaction decides).
   */
  async #write<T extends object>(text: string, values: unknown[]): Promise<QueryResult<T> | undefined> {
    try {
      return await this.#pool.query<T>(this.#statement(text, values));
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return undefined;
      throw postgresOperationError(error, this.#where);
    }
  }

  async #appendInTransaction(runId: string, events: PreparedEvent[], token: number | undefined): Promise<void> {
    const client = await this.#connect();
    let broken: unknown;
    try {
      await client.query('BEGIN');
      try {
        const row = await this.#planInTransaction(client, runId, events, token);
        await client.query('COMMIT');
        if (row !== undefined) this.#remember(row);
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
        throw error;
      }
    } catch (error) {
      throw postgresOperationError(error, this.#where);
    } finally {
      // A client whose rollback failed is in an unknown state: destroy it instead of reusing it.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Appends in the open transaction of `client`; returns the run's row as stored afterwards (to remember). */
  async #planInTransaction(
    client: PoolClient,
    runId: string,
    events: PreparedEvent[],
    token: number | undefined,
  ): Promise<RunRow | undefined> {
    const first = events[0] as PreparedEvent;
    // Upserting a placeholder row both creates a new run and locks the run's row, so writers of one run
    // take turns (an insert-only append reads the row FOR SHARE); a placeholder (last_sequence -1) reads as
    // "no run yet".
    const locked = await client.query<RunRecord>(this.#statement(this.#sql.lockRun, [runId, first.time]));
    const record = locked.rows[0] as RunRecord;
    if (token !== undefined && token < record.fencing_token) throw fencedError(runId, token, record.fencing_token);
    const stored = toRunRow(record);
    const current = record.last_sequence < 0 ? undefined : { ...stored };
    if (current !== undefined) {
      // The row moves only when a segment starts or ends: the journal's last event says where the run is.
      const end = await client.query<{ sequence: number; time: string | null }>(
        this.#statement(this.#sql.journalEnd, [runId]),
      );
      const last = end.rows[0];
      if (last !== undefined && last.sequence > current.lastSequence) current.lastSequence = last.sequence;
      if (last?.time != null && last.time > current.updatedAt) current.updatedAt = last.time;
    }
    const existing = new Map<number, string>();
    if (current !== undefined && first.sequence <= current.lastSequence) {
      const to = Math.min(current.lastSequence, (events[events.length - 1] as PreparedEvent).sequence);
      const rows = await client.query<JournalRow>(this.#statement(this.#sql.getEvents, [runId, first.sequence, to]));
      for (const row of rows.rows) existing.set(row.sequence, row.json);
    }
    const plan = planAppend(runId, events, current, existing);
    if (plan.row === undefined) return stored.lastSequence < 0 ? undefined : stored;
    const batch = [
      runId,
      plan.insert.map((event) => event.sequence),
      plan.insert.map((event) => event.type),
      plan.insert.map((event) => event.json),
    ];
    if (current !== undefined && !plan.insert.some(startsOrEnds)) {
      await client.query(this.#statement(this.#sql.insertEvents, [...batch, plan.insert.map((event) => event.time)]));
      return stored;
    }
    const row = { ...plan.row, fencingToken: stored.fencingToken };
    await client.query(
      this.#statement(this.#sql.insertEventsAndUpdateRun, [
        ...batch,
        row.status,
        row.model ?? null,
        row.sessionId ?? null,
        row.createdAt,
        row.updatedAt,
        row.lastSequence,
        totalsColumn(row),
        row.tenant ?? null,
        plan.insert.map((event) => event.time),
      ]),
    );
    return row;
  }

  #remember(row: RunRow): void {
    this.#known.set(row.runId, row);
    if (this.#known.size > KNOWN_ROWS) this.#known.delete(this.#known.keys().next().value as string);
  }

  async acquireLease(runId: string, options: AcquireLeaseOptions): Promise<AcquireLeaseResult> {
    this.#open('acquireLease');
    return acquirePostgresLease(this.#run, this.#sql, runId, options, (row) => this.#remember(row));
  }

  async renewLease(lease: RunLease, leaseMs: number): Promise<RunLease> {
    this.#open('renewLease');
    return renewPostgresLease(this.#run, this.#sql, lease, leaseMs);
  }

  async releaseLease(lease: RunLease): Promise<void> {
    this.#open('releaseLease');
    await this.#query(this.#sql.releaseLease, [lease.runId, lease.token]);
  }

  async claimOrphans(options: ClaimOrphansOptions): Promise<RunLease[]> {
    this.#open('claimOrphans');
    return claimPostgresOrphans(this.#run, this.#sql, options);
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const result = await this.#query<JournalRow>(this.#sql.readJournal, [runId]);
    return decodeRun(runId, result);
  }

  async readEvents(runId: string, query: ReadEventsQuery): Promise<RunEvent[]> {
    this.#open('readEvents');
    checkId(runId, 'readEvents: runId');
    const { after, limit } = checkEventsQuery(query);
    const result = await this.#query<JournalRow>(this.#sql.readEventsAfter, [runId, after, limit]);
    return decodeEvents(runId, result);
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const { text, parameters } = listRunsQuery(this.#sql, checkQuery('listRuns', query));
    const records = await this.#query<RunRecord>(text, parameters);
    return records.map((record) => toRunSummary(toRunRow(record)));
  }

  async runsOverview(query: RunsOverviewQuery): Promise<RunsOverview> {
    this.#open('runsOverview');
    const window = checkOverviewQuery(query);
    return postgresOverview((text, values) => this.#query(text, values), this.#sql, window);
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.#open('getSession');
    return getPostgresSession(this.#run, this.#sql, id);
  }

  async saveSession(session: StoredSession): Promise<void> {
    this.#open('saveSession');
    await savePostgresSession(this.#run, this.#sql, session, this.#options.limits);
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#open('deleteSession');
    return deletePostgresSession(this.#run, this.#sql, id);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    this.#open('listSessions');
    return listPostgresSessions(this.#run, this.#sql, query);
  }

  /** Ends the pool (waiting for operations in flight); calling it again returns the same promise. */
  close(): Promise<void> {
    // The listening connection goes back to the pool first: ending the pool waits for every client.
    this.#closing ??= this.#signals.close().then(() => this.#pool.end());
    return this.#closing;
  }

  #open(method: string): void {
    if (this.#closing !== undefined) throw closedError(method, this.#where);
  }

  async #connect(): Promise<PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw postgresOperationError(error, this.#where);
    }
  }

  /** A query of `text`: named (prepared once per connection) when it is one of the fixed statements. */
  #statement(text: string, values: unknown[]): { name?: string; text: string; values: unknown[] } {
    const name = this.#names.get(text);
    return name === undefined ? { text, values } : { name, text, values };
  }

  async #query<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.#pool.query<T>(this.#statement(text, values))).rows;
    } catch (error) {
      throw postgresOperationError(error, this.#where);
    }
  }
}
