import type BetterSqlite3 from 'better-sqlite3';
import type { RunRow } from './plan-append';
import type { PreparedEvent } from './prepare-events';
import { totalsColumn } from './run-record';
import type { AppendRecord } from './sqlite-append-records';

/** The statements that write a run's row (see sqlite-statements.ts). */
export interface RunRowStatements {
  insertRun: BetterSqlite3.Statement;
  updateRun: BetterSqlite3.Statement;
  updateRunProgress: BetterSqlite3.Statement;
  sessionKey: BetterSqlite3.Statement;
  addSessionKey: BetterSqlite3.Statement;
}

/**
 * The key of session `sessionId`, given now when it has none (see sqlite-statements.ts): keys are handed out in
 * order, so a new session's first run goes at the right end of the runs' by-session index (its id is random).
 * A new session's key costs one statement; a known one's two (its key read after the insert did nothing).
 */
function sessionKey(statements: RunRowStatements, sessionId: string, row: RunRow): number {
  const added = statements.addSessionKey.get(sessionId, row.createdAt, row.createdAt, row.tenant ?? null) as
    | { key: number }
    | undefined;
  return added?.key ?? (statements.sessionKey.get(sessionId) as { key: number }).key;
}

/**
 * Writes `row`, the run's row after an append whose last event is `last`, with the narrowest statement:
 * an INSERT for a run without a row (`record` undefined); an UPDATE of the columns that move (status, time,
 * last sequence, totals) when the model, session, tenant and creation time stay, as at a segment's end;
 * every column otherwise. SQLite rewrites each index on a column an UPDATE names, changed or not: the
 * narrow UPDATE leaves the session and tenant indexes alone (a continued session's runs sit at its
 * key's place in the session index, away from the new rows), and neither tries an insert first as an upsert does.
 * Returns the record as an append would now read it.
 */
export function writeRunRow(
  statements: RunRowStatements,
  record: AppendRecord | undefined,
  row: RunRow,
  last: PreparedEvent,
): AppendRecord {
  const runId = row.runId;
  const model = row.model ?? null;
  const sessionId = row.sessionId ?? null;
  const tenant = row.tenant ?? null;
  const totals = totalsColumn(row);
  const unchanged =
    record !== undefined &&
    record.model === model &&
    record.session_id === sessionId &&
    record.tenant === tenant &&
    record.created_at === row.createdAt;
  if (unchanged) statements.updateRunProgress.run(row.status, row.updatedAt, row.lastSequence, totals, runId);
  else {
    // The same named columns for both: a run without a row is inserted, one whose named columns move is updated.
    const columns = {
      runId,
      status: row.status,
      model,
      sessionId,
      sessionKey: sessionId === null ? null : sessionKey(statements, sessionId, row),
      tenant,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      lastSequence: row.lastSequence,
      totals,
    };
    (record === undefined ? statements.insertRun : statements.updateRun).run(columns);
  }
  return {
    run_id: runId,
    status: row.status,
    model,
    session_id: sessionId,
    tenant,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    last_sequence: row.lastSequence,
    totals,
    owner: record?.owner ?? null,
    lease_until: record?.lease_until ?? null,
    fencing_token: record?.fencing_token ?? 0,
    journal_last: last.sequence,
    journal_time: last.time,
  };
}
