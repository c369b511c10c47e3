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
import type { Pool, PoolClient } from 'pg';
import { checkId } from './check-id';
import { checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeRun, type JournalRow } from './decode-run';
import type { StoreLimits } from './limits';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations';
import { planAppend } from './plan-append';
import { postgresOpenError, postgresOperationError } from './postgres-faults';
import { POSTGRES_MIGRATIONS } from './postgres-migrations';
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

// One round trip: the append's commit returns once the server has it, without waiting for its WAL fsync.
const APPEND_BEGIN_NORMAL = 'BEGIN; SET LOCAL synchronous_commit TO OFF';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Opens a Postgres store: connects (bounded by `connectTimeoutMs`) and applies migrations; failures are `ConfigError`s. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new ConfigError(
      `Postgres store at ${options.redacted}: schema ${JSON.stringify(options.schema)} is not a plain identifier; ` +
        'use letters, digits and underscores (at most 63, not starting with a digit)',
    );
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    allowExitOnIdle: true,
    application_name: 'bridle',
  });
  // A client whose connection drops emits 'error' (the pool re-emits it for idle clients) besides failing its
  // queries; without listeners that would crash the process. The failed query already reports it as a
  // StoreError, the pool drops the client, and the next operation connects again.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    try {
      await migrate(client, options);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw postgresOpenError(error, options.redacted, options.connectTimeoutMs);
  }
  return new PostgresStore(pool, options);
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

async function schemaVersion(client: PoolClient, schema: string): Promise<number> {
  const table = await client.query<{ exists: string | null }>('SELECT to_regclass($1) AS exists', [
    `${quote(schema)}.${SCHEMA_VERSION_TABLE}`,
  ]);
  if (table.rows[0]?.exists == null) return 0;
  const result = await client.query<{ version: number | null }>(
    `SELECT MAX(version) AS version FROM ${quote(schema)}.${SCHEMA_VERSION_TABLE}`,
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Applies pending migrations inside one transaction holding an advisory lock keyed by the schema, so any
 * number of processes may open one database at once: one migrates, the others wait and find nothing to do.
 */
async function migrate(client: PoolClient, options: PostgresStoreOptions): Promise<void> {
  const where = `${options.redacted} (schema ${options.schema})`;
  if (pendingMigrations(POSTGRES_MIGRATIONS, await schemaVersion(client, options.schema), where).length === 0) return;
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('bridle_store'), hashtext($1))", [options.schema]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quote(options.schema)}`);
    const pending = pendingMigrations(POSTGRES_MIGRATIONS, await schemaVersion(client, options.schema), where);
    if (pending.length > 0) {
      const table = `${quote(options.schema)}.${SCHEMA_VERSION_TABLE}`;
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (version integer PRIMARY KEY, applied_at text NOT NULL)`);
      for (const migration of pending) {
        for (const statement of migration.statements) {
          await client.query(statement.replaceAll('{schema}', quote(options.schema)));
        }
        await client.query(`INSERT INTO ${table} (version, applied_at) VALUES ($1, $2)`, [
          migration.version,
          new Date().toISOString(),
        ]);
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

class PostgresStore implements Store {
  readonly #pool: Pool;
  readonly #options: PostgresStoreOptions;
  readonly #where: string;
  readonly #sql: ReturnType<typeof statements>;
  #closing: Promise<void> | undefined;

  constructor(pool: Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#options = options;
    this.#where = options.schema === 'public' ? options.redacted : `${options.redacted} (schema ${options.schema})`;
    this.#sql = statements(quote(options.schema));
  }

  async appendEvents(runId: string, events: RunEvent[]): Promise<void> {
    this.#open('appendEvents');
    const prepared = prepareEvents(runId, events, this.#options.limits);
    if (prepared.length === 0) return;
    const client = await this.#connect();
    let broken: unknown;
    try {
      await client.query(this.#options.synchronous === 'normal' ? APPEND_BEGIN_NORMAL : 'BEGIN');
      try {
        await this.#appendInTransaction(client, runId, prepared);
        await client.query('COMMIT');
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

  async #appendInTransaction(client: PoolClient, runId: string, events: PreparedEvent[]): Promise<void> {
    const first = events[0] as PreparedEvent;
    // Upserting a placeholder row both creates a new run and locks the run's row, so writers of one run
    // take turns; a placeholder (last_sequence -1) reads as "no run yet".
    const locked = await client.query<RunRecord>(this.#sql.lockRun, [runId, first.time]);
    const record = locked.rows[0] as RunRecord;
    const current = record.last_sequence < 0 ? undefined : toRunRow(record);
    const existing = new Map<number, string>();
    if (current !== undefined && first.sequence <= current.lastSequence) {
      const to = Math.min(current.lastSequence, (events[events.length - 1] as PreparedEvent).sequence);
      const rows = await client.query<JournalRow>(this.#sql.getEvents, [runId, first.sequence, to]);
      for (const row of rows.rows) existing.set(row.sequence, row.json);
    }
    const plan = planAppend(runId, events, current, existing);
    if (plan.row === undefined) return;
    const row = plan.row;
    await client.query(this.#sql.insertEventsAndUpdateRun, [
      runId,
      plan.insert.map((event) => event.sequence),
      plan.insert.map((event) => event.type),
      plan.insert.map((event) => event.json),
      row.status,
      row.model ?? null,
      row.sessionId ?? null,
      row.createdAt,
      row.updatedAt,
      row.lastSequence,
      totalsColumn(row),
    ]);
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const result = await this.#query<JournalRow>(this.#sql.readJournal, [runId]);
    return decodeRun(runId, result);
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const { limit, before, status, sessionId } = checkQuery('listRuns', query);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const add = (condition: string, value: unknown) => {
      parameters.push(value);
      conditions.push(`${condition} $${parameters.length}`);
    };
    if (status !== undefined) add('status =', status);
    if (sessionId !== undefined) add('session_id =', sessionId);
    if (before !== undefined) add('updated_at <', before);
    parameters.push(limit);
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const records = await this.#query<RunRecord>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#sql.runs} ${where} ORDER BY updated_at DESC, run_id DESC LIMIT $${parameters.length}`,
      parameters,
    );
    return records.map((record) => toRunSummary(toRunRow(record)));
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.#open('getSession');
    checkId(id, 'getSession: id');
    const rows = await this.#query<{ data: string }>(this.#sql.getSession, [id]);
    return rows[0] && decodeSession(id, rows[0].data);
  }

  async saveSession(session: StoredSession): Promise<void> {
    this.#open('saveSession');
    const prepared = prepareSession(session, this.#options.limits);
    await this.#query(this.#sql.saveSession, [
      prepared.id,
      prepared.json,
      prepared.messageCount,
      prepared.createdAt,
      prepared.updatedAt,
    ]);
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#open('deleteSession');
    checkId(id, 'deleteSession: id');
    const rows = await this.#query<{ id: string }>(this.#sql.deleteSession, [id]);
    return rows.length > 0;
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    this.#open('listSessions');
    const { limit, before } = checkQuery('listSessions', query);
    const records =
      before === undefined
        ? await this.#query<SessionRecord>(this.#sql.listSessions, [limit])
        : await this.#query<SessionRecord>(this.#sql.listSessionsBefore, [before, limit]);
    return records.map(toSessionSummary);
  }

  /** Ends the pool (waiting for operations in flight); calling it again returns the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#pool.end();
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

  async #query<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.#pool.query<T>(text, values)).rows;
    } catch (error) {
      throw postgresOperationError(error, this.#where);
    }
  }
}

function statements(schema: string) {
  const runs = `${schema}.bridle_runs`;
  const events = `${schema}.bridle_run_events`;
  const sessions = `${schema}.bridle_sessions`;
  return {
    runs,
    lockRun:
      `INSERT INTO ${runs} (run_id, status, created_at, updated_at, last_sequence) VALUES ($1, 'running', $2, $2, -1) ` +
      `ON CONFLICT (run_id) DO UPDATE SET run_id = excluded.run_id ` +
      `RETURNING ${RUN_COLUMNS}`,
    getEvents: `SELECT sequence, data AS json FROM ${events} WHERE run_id = $1 AND sequence >= $2 AND sequence <= $3`,
    // One round trip: the events' INSERT runs as a data-modifying CTE beside the row's UPDATE.
    insertEventsAndUpdateRun:
      `WITH inserted AS (INSERT INTO ${events} (run_id, sequence, type, data) ` +
      'SELECT $1, sequence, type, data FROM unnest($2::integer[], $3::text[], $4::text[]) AS batch (sequence, type, data)) ' +
      `UPDATE ${runs} SET status = $5, model = $6, session_id = $7, created_at = $8, updated_at = $9, ` +
      'last_sequence = $10, totals = $11 WHERE run_id = $1',
    readJournal: `SELECT sequence, data AS json FROM ${events} WHERE run_id = $1 ORDER BY sequence`,
    getSession: `SELECT data FROM ${sessions} WHERE id = $1`,
    saveSession:
      `INSERT INTO ${sessions} (id, data, message_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ` +
      'ON CONFLICT (id) DO UPDATE SET data = excluded.data, message_count = excluded.message_count, ' +
      'created_at = excluded.created_at, updated_at = excluded.updated_at',
    deleteSession: `DELETE FROM ${sessions} WHERE id = $1 RETURNING id`,
    listSessions: `SELECT ${SESSION_COLUMNS} FROM ${sessions} ORDER BY updated_at DESC, id DESC LIMIT $1`,
    listSessionsBefore: `SELECT ${SESSION_COLUMNS} FROM ${sessions} WHERE updated_at < $1 ORDER BY updated_at DESC, id DESC LIMIT $2`,
  };
}
