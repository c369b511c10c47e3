import { DEFAULT_TENANT, type SessionSummary } from '@bridle/protocol';
import { type RunRow, runRow } from './plan-append';
import type { RunTotals } from './prepare-events';
import { titleOf } from './run-title';

/** A row of the `bridle_runs` table as both SQL stores read it. */
export interface RunRecord {
  run_id: string;
  status: string;
  model: string | null;
  session_id: string | null;
  tenant: string | null;
  created_at: string;
  updated_at: string;
  last_sequence: number;
  /** JSON of the run's {@link RunTotals} (null until a `run_end`). */
  totals: string | null;
  /** `listRuns` only: the first line of the run's prompt, cut to `TITLE_LINE_CHARS` (see run-title.ts). */
  title_line?: string | null;
  /** Who holds the run's lease (null when nobody does). */
  owner: string | null;
  /** When the lease ends, in ms since the epoch (Postgres' bigint arrives as a string). */
  lease_until: number | string | null;
  fencing_token: number;
}

/** A row of the `bridle_sessions` table without its data, as both SQL stores list it. */
export interface SessionRecord {
  id: string;
  message_count: number;
  created_at: string;
  updated_at: string;
}

/**
 * The SQL condition of a tenant filter on a `tenant` column, with `?` for its one parameter (the tenant):
 * {@link DEFAULT_TENANT} also matches rows that name no tenant (journaled before tenants, or by the CLI).
 */
export function tenantCondition(tenant: string): string {
  return tenant === DEFAULT_TENANT ? '(tenant = ? OR tenant IS NULL)' : 'tenant = ?';
}

/** The columns of {@link RunRecord}, for SELECT lists. */
export const RUN_COLUMNS =
  'run_id, status, model, session_id, tenant, created_at, updated_at, last_sequence, totals, owner, lease_until, fencing_token';

/** The columns of {@link SessionRecord}, for SELECT lists. */
export const SESSION_COLUMNS = 'id, message_count, created_at, updated_at';

/** A runs-table record as a {@link RunRow}. */
export function toRunRow(record: RunRecord): RunRow {
  return runRow({
    runId: record.run_id,
    status: record.status,
    ...(record.model !== null && { model: record.model }),
    ...(record.session_id !== null && { sessionId: record.session_id }),
    ...(record.tenant !== null && { tenant: record.tenant }),
    createdAt: record.created_at,
    updatedAt: record.updated_at,
    lastSequence: record.last_sequence,
    ...totalsOf(record.totals),
    ...(record.title_line != null && { title: titleOf(record.title_line) }),
    ...(record.owner !== null &&
      record.lease_until !== null && {
        owner: record.owner,
        leaseUntil: new Date(Number(record.lease_until)).toISOString(),
      }),
    fencingToken: record.fencing_token,
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
