import { RUN_COLUMNS, SESSION_COLUMNS } from './run-record';

/** The database's clock in ms since the epoch: leases of processes on many machines share one clock. */
export const NOW_MS = '(extract(epoch from now()) * 1000)::bigint';

/**
 * The name under which each fixed statement of {@link statements} is prepared (once per pooled connection):
 * a named statement is parsed and planned once, where an unnamed one is parsed, analysed and planned on every
 * call. For the append's CTE (an UPDATE and an INSERT) that was most of the append's cost on the server:
 * about 0.8 ms of a 1.1 ms append here, against 0.3 ms named (see bench/durable/fenced-append.ts).
 * Table names are not statements and get none.
 */
export function statementNames(sql: Record<string, string>): Map<string, string> {
  const names = new Map<string, string>();
  for (const [key, text] of Object.entries(sql)) if (/\s/.test(text)) names.set(text, `bridle_${key}`);
  return names;
}

/** The Postgres store's SQL text for the tables of `schema` (already quoted). */
export function statements(schema: string) {
  const runs = `${schema}.bridle_runs`;
  const events = `${schema}.bridle_run_events`;
  const sessions = `${schema}.bridle_sessions`;
  return {
    runs,
    sessions,
    events,
    lockRun:
      `INSERT INTO ${runs} (run_id, status, created_at, updated_at, last_sequence) VALUES ($1, 'running', $2, $2, -1) ` +
      `ON CONFLICT (run_id) DO UPDATE SET run_id = excluded.run_id ` +
      `RETURNING ${RUN_COLUMNS}`,
    getEvents: `SELECT sequence, data AS json FROM ${events} WHERE run_id = $1 AND sequence >= $2 AND sequence <= $3`,
    // The journal's last event (the run's row moves only when a segment starts or ends).
    journalEnd: `SELECT sequence, time FROM ${events} WHERE run_id = $1 ORDER BY sequence DESC LIMIT 1`,
    insertEvents:
      `INSERT INTO ${events} (run_id, sequence, type, data, time) ` +
      'SELECT $1, sequence, type, data, time FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[]) AS batch (sequence, type, data, time)',
    // One round trip: the events' INSERT runs as a data-modifying CTE beside the row's UPDATE.
    insertEventsAndUpdateRun:
      `WITH inserted AS (INSERT INTO ${events} (run_id, sequence, type, data, time) ` +
      'SELECT $1, sequence, type, data, time FROM unnest($2::integer[], $3::text[], $4::text[], $13::text[]) AS batch (sequence, type, data, time)) ' +
      `UPDATE ${runs} SET status = $5, model = $6, session_id = $7, created_at = $8, updated_at = $9, ` +
      'last_sequence = $10, totals = $11, tenant = $12 WHERE run_id = $1',
    // One statement, so one round trip, for a segment's start or end: the run's row moves on only while its
    // last sequence is the one this process last wrote to it, no newer lease fenced the token and the journal
    // holds nothing at or after the batch; the events are inserted only when it did. The row's time takes in
    // the journal's last event (appended since without touching the row).
    appendKnown:
      `WITH advanced AS (UPDATE ${runs} SET status = $5, model = $6, session_id = $7, created_at = $8, ` +
      `updated_at = greatest($9, (SELECT e.time FROM ${events} e WHERE e.run_id = $1 ORDER BY e.sequence DESC LIMIT 1)), ` +
      'last_sequence = $10, totals = $11, tenant = $14 ' +
      'WHERE run_id = $1 AND last_sequence = $12 AND ($13::integer IS NULL OR fencing_token <= $13) ' +
      `AND NOT EXISTS (SELECT 1 FROM ${events} WHERE run_id = $1 AND sequence >= ($2::integer[])[1]) RETURNING updated_at), ` +
      `inserted AS (INSERT INTO ${events} (run_id, sequence, type, data, time) ` +
      'SELECT $1, sequence, type, data, time FROM unnest($2::integer[], $3::text[], $4::text[], $15::text[]) AS batch (sequence, type, data, time) ' +
      'WHERE EXISTS (SELECT 1 FROM advanced)) ' +
      'SELECT updated_at FROM advanced',
    acquireLease:
      `INSERT INTO ${runs} AS r (run_id, status, created_at, updated_at, last_sequence, owner, lease_until, fencing_token) ` +
      `VALUES ($1, 'running', $2, $2, -1, $3, ${NOW_MS} + $4, 1) ` +
      'ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until, ' +
      'fencing_token = r.fencing_token + 1 ' +
      `WHERE $5 OR r.owner IS NULL OR r.lease_until IS NULL OR r.lease_until < ${NOW_MS} ` +
      `RETURNING ${RUN_COLUMNS}`,
    leaseHolder: `SELECT owner, lease_until FROM ${runs} WHERE run_id = $1 AND owner IS NOT NULL`,
    renewLease:
      `UPDATE ${runs} SET lease_until = ${NOW_MS} + $3 WHERE run_id = $1 AND fencing_token = $2 AND owner IS NOT NULL ` +
      'RETURNING owner, lease_until',
    latestToken: `SELECT fencing_token FROM ${runs} WHERE run_id = $1`,
    releaseLease: `UPDATE ${runs} SET owner = NULL, lease_until = NULL WHERE run_id = $1 AND fencing_token = $2`,
    // FOR UPDATE SKIP LOCKED: two processes claiming at once lock different rows, and the outer condition is
    // checked again on the locked row, so each orphan goes to one of them.
    claimOrphans:
      `UPDATE ${runs} AS r SET owner = $1, lease_until = ${NOW_MS} + $2, fencing_token = r.fencing_token + 1 ` +
      `WHERE r.run_id IN (SELECT run_id FROM ${runs} WHERE status = 'running' AND last_sequence >= 0 ` +
      `AND lease_until < ${NOW_MS} LIMIT $3 FOR UPDATE SKIP LOCKED) AND r.lease_until < ${NOW_MS} ` +
      'RETURNING r.run_id, r.fencing_token, r.lease_until',
    readJournal: `SELECT sequence, data AS json FROM ${events} WHERE run_id = $1 ORDER BY sequence`,
    readEventsAfter: `SELECT sequence, data AS json FROM ${events} WHERE run_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
    getSession: `SELECT data FROM ${sessions} WHERE id = $1`,
    saveSession:
      `INSERT INTO ${sessions} (id, data, message_count, created_at, updated_at, tenant) VALUES ($1, $2, $3, $4, $5, $6) ` +
      'ON CONFLICT (id) DO UPDATE SET data = excluded.data, message_count = excluded.message_count, ' +
      'created_at = excluded.created_at, updated_at = excluded.updated_at, tenant = excluded.tenant',
    deleteSession: `DELETE FROM ${sessions} WHERE id = $1 RETURNING id`,
    listSessions: `SELECT ${SESSION_COLUMNS} FROM ${sessions} ORDER BY updated_at DESC, id DESC LIMIT $1`,
    listSessionsBefore: `SELECT ${SESSION_COLUMNS} FROM ${sessions} WHERE updated_at < $1 ORDER BY updated_at DESC, id DESC LIMIT $2`,
  };
}
