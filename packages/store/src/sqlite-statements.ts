import type BetterSqlite3 from 'better-sqlite3';
import { RUN_COLUMNS, SESSION_COLUMNS } from './run-record';

type Database = BetterSqlite3.Database;

/** The name of each prepared statement. */
type StatementName =
  | 'getRun'
  | 'getEvents'
  | 'insertEvent'
  | 'insertRun'
  | 'updateRun'
  | 'updateRunProgress'
  | 'getRunForAppend'
  | 'insertLeasedRun'
  | 'takeLease'
  | 'renewLease'
  | 'releaseLease'
  | 'findOrphans'
  | 'readJournal'
  | 'readEventsAfter'
  | 'sessionKey'
  | 'addSessionKey'
  | 'getSession'
  | 'saveSession'
  | 'deleteSession'
  | 'forgetSession'
  | 'listSessions'
  | 'listSessionsBefore';

/** The SQLite store's statements, prepared once per open file. */
export function prepareStatements(db: Database): Record<StatementName, BetterSqlite3.Statement> {
  return {
    getRun: db.prepare(`SELECT ${RUN_COLUMNS} FROM bridle_runs WHERE run_id = ?`),
    getEvents: db.prepare(
      'SELECT sequence, data AS json FROM bridle_run_events WHERE run_id = ? AND sequence >= ? AND sequence <= ?',
    ),
    insertEvent: db.prepare(
      'INSERT INTO bridle_run_events (run_id, sequence, type, data, time) VALUES (?, ?, ?, ?, ?)',
    ),
    insertRun: db.prepare(
      'INSERT INTO bridle_runs (run_id, status, model, session_id, session_key, tenant, created_at, updated_at, last_sequence, totals) ' +
        'VALUES (@runId, @status, @model, @sessionId, @sessionKey, @tenant, @createdAt, @updatedAt, @lastSequence, @totals)',
    ),
    updateRun: db.prepare(
      'UPDATE bridle_runs SET status = @status, model = @model, session_id = @sessionId, session_key = @sessionKey, tenant = @tenant, ' +
        'created_at = @createdAt, updated_at = @updatedAt, last_sequence = @lastSequence, totals = @totals ' +
        'WHERE run_id = @runId',
    ),
    // The columns a segment's end (or a later start) moves: every index on a column named in SET is rewritten,
    // whether its value changed or not, so the session and tenant indexes are left out when they stay.
    updateRunProgress: db.prepare(
      'UPDATE bridle_runs SET status = ?, updated_at = ?, last_sequence = ?, totals = ? WHERE run_id = ?',
    ),
    // The run's row with its journal's last sequence and time (the row itself moves only at a segment's start
    // or end); three parameters, each the run id.
    getRunForAppend: db.prepare(
      `SELECT ${RUN_COLUMNS}, ` +
        '(SELECT sequence FROM bridle_run_events WHERE run_id = ? ORDER BY sequence DESC LIMIT 1) AS journal_last, ' +
        '(SELECT time FROM bridle_run_events WHERE run_id = ? ORDER BY sequence DESC LIMIT 1) AS journal_time ' +
        'FROM bridle_runs WHERE run_id = ?',
    ),
    insertLeasedRun: db.prepare(
      'INSERT INTO bridle_runs (run_id, status, created_at, updated_at, last_sequence, owner, lease_until, fencing_token) ' +
        "VALUES (?, 'running', ?, ?, -1, ?, ?, ?)",
    ),
    takeLease: db.prepare('UPDATE bridle_runs SET owner = ?, lease_until = ?, fencing_token = ? WHERE run_id = ?'),
    renewLease: db.prepare('UPDATE bridle_runs SET lease_until = ? WHERE run_id = ?'),
    releaseLease: db.prepare(
      'UPDATE bridle_runs SET owner = NULL, lease_until = NULL WHERE run_id = ? AND fencing_token = ?',
    ),
    findOrphans: db.prepare(
      "SELECT run_id, fencing_token FROM bridle_runs WHERE status = 'running' AND last_sequence >= 0 " +
        'AND lease_until IS NOT NULL AND lease_until < ? LIMIT ?',
    ),
    readJournal: db.prepare('SELECT sequence, data AS json FROM bridle_run_events WHERE run_id = ? ORDER BY sequence'),
    readEventsAfter: db.prepare(
      'SELECT sequence, data AS json FROM bridle_run_events WHERE run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?',
    ),
    // A session's key (runs are indexed by it, schema version 8); a row with message_count -1 is no session, only
    // the key of a session id that runs named before (or after) a transcript was saved under it.
    sessionKey: db.prepare('SELECT key FROM bridle_sessions WHERE id = ?'),
    // Gives a session id the next key when it has none: a new row with no transcript (with the run's tenant and
    // creation time), or the key a session saved before its first run lacked; returns no row when it had one.
    addSessionKey: db.prepare(
      "INSERT INTO bridle_sessions (id, data, message_count, created_at, updated_at, tenant, key) VALUES (?, '', -1, ?, ?, ?, " +
        '(SELECT coalesce(max(session_key), 0) + 1 FROM bridle_runs)) ' +
        'ON CONFLICT (id) DO UPDATE SET key = excluded.key WHERE key IS NULL RETURNING key',
    ),
    getSession: db.prepare('SELECT data FROM bridle_sessions WHERE id = ? AND message_count >= 0'),
    saveSession: db.prepare(
      'INSERT INTO bridle_sessions (id, data, message_count, created_at, updated_at, tenant) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET data = excluded.data, message_count = excluded.message_count, ' +
        'created_at = excluded.created_at, updated_at = excluded.updated_at, tenant = excluded.tenant',
    ),
    // A session that runs name keeps its row as their key (a later run of the same id joins them); others go.
    deleteSession: db.prepare('DELETE FROM bridle_sessions WHERE id = ? AND message_count >= 0 AND key IS NULL'),
    forgetSession: db.prepare(
      "UPDATE bridle_sessions SET data = '', message_count = -1, tenant = NULL WHERE id = ? AND message_count >= 0",
    ),
    listSessions: db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM bridle_sessions WHERE message_count >= 0 ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    listSessionsBefore: db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM bridle_sessions WHERE updated_at < ? AND message_count >= 0 ` +
        'ORDER BY updated_at DESC, id DESC LIMIT ?',
    ),
  };
}
