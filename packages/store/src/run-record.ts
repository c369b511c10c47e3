import type { SessionSummary } from '@bridle/protocol';
import { type RunRow, runRow } from './plan-append';
import type { RunTotals } from './prepare-events';

/** A row of the `bridle_runs` table as both SQL stores read it. */
export interface RunRecord {
  run_id: string;
  status: string;
  model: string | null;
  session_id: string | null;
  created_at: string;
  updated_at: string;
  last_sequence: number;
  /** JSON of the run's {@link RunTotals} (null until a `run_end`). */
  totals: string | null;
}

/** A row of the `bridle_sessions` table without its data, as both SQL stores list it. */
export interface SessionRecord {
  id: string;
  message_count: number;
  created_at: string;
  updated_at: string;
}

/** The columns of {@link RunRecord}, for SELECT lists. */
export const RUN_COLUMNS = 'run_id, status, model, session_id, created_at, updated_at, last_sequence, totals';

/** The columns of {@link SessionRecord}, for SELECT lists. */
export const SESSION_COLUMNS = 'id, message_count, created_at, updated_at';

/** A runs-table record as a {@link RunRow}. */
export function toRunRow(record: RunRecord): RunRow {
  return runRow({
    runId: record.run_id,
    status: record.status,
    ...(record.model !== null && { model: record.model }),
    ...(record.session_id !== null && { sessionId: record.session_id }),
    createdAt: record.created_at,
    updatedAt: record.updated_at,
    lastSequence: record.last_sequence,
    ...totalsOf(record.totals),
  });
}

/**
 * The `totals` column read back. The totals are derived (the journal's `run_end` events hold them too):
 * a value that is not a JSON object (a damaged row, a hand edit) counts as none, so one bad row cannot
 * make `listRuns` fail for every run, and the run's next `run_end` writes them afresh.
 */
function totalsOf(column: string | null): RunTotals {
  if (column === null) return {};
  try {
    const totals: unknown = JSON.parse(column);
    return typeof totals === 'object' && totals !== null && !Array.isArray(totals) ? (totals as RunTotals) : {};
  } catch {
    return {};
  }
}

/** The totals of a row as the `totals` column holds them (null when the run has not ended a segment). */
export function totalsColumn(row: RunRow): string | null {
  if (
    row.steps === undefined &&
    row.toolCalls === undefined &&
    row.usage === undefined &&
    row.durationMs === undefined
  ) {
    return null;
  }
  const totals: RunTotals = {
    ...(row.steps !== undefined && { steps: row.steps }),
    ...(row.toolCalls !== undefined && { toolCalls: row.toolCalls }),
    ...(row.usage !== undefined && { usage: row.usage }),
    ...(row.durationMs !== undefined && { durationMs: row.durationMs }),
  };
  return JSON.stringify(totals);
}

/** A sessions-table record as `listSessions` returns it. */
export function toSessionSummary(record: SessionRecord): SessionSummary {
  return {
    id: record.id,
    messageCount: record.message_count,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
  };
}
