import { DEFAULT_TENANT, type RunsOverview } from '@bridle/protocol';
import type { Database } from 'better-sqlite3';
import { SLOWEST_TOOLS } from './memory-overview';

// A run's first run_start (its title and whether a sub-agent's run) is read by primary key, in sequence order.
const FIRST_START =
  "(SELECT e.data FROM bridle_run_events e WHERE e.run_id = r.run_id AND e.type = 'run_start' ORDER BY e.sequence LIMIT 1)";
// A tenant filter (null: every run); the default tenant also owns runs journaled without one.
const WINDOW = `r.created_at >= @since AND (@until IS NULL OR r.created_at < @until)
  AND (@tenant IS NULL OR r.tenant = @tenant OR (@tenant = '${DEFAULT_TENANT}' AND r.tenant IS NULL))`;
const TOP_LEVEL = `${WINDOW} AND json_type(${FIRST_START}, '$.parent') IS NULL`;
const DURATION = "json_extract(r.totals, '$.durationMs')";

const SQL = {
  runsPerHour: `SELECT substr(r.created_at, 1, 13) || ':00:00.000Z' AS hour, r.status AS status, count(*) AS runs
    FROM bridle_runs r WHERE ${TOP_LEVEL} GROUP BY 1, 2 ORDER BY 1, 2`,
  // Nearest rank: the value at position ceil(share * n), 1-based.
  duration: `WITH d AS (SELECT ${DURATION} AS ms FROM bridle_runs r
      WHERE ${TOP_LEVEL} AND json_type(r.totals, '$.durationMs') IN ('integer', 'real'))
    SELECT (SELECT count(*) FROM d) AS runs,
      (SELECT ms FROM d ORDER BY ms LIMIT 1 OFFSET (SELECT (count(*) * 50 + 99) / 100 - 1 FROM d)) AS p50,
      (SELECT ms FROM d ORDER BY ms LIMIT 1 OFFSET (SELECT (count(*) * 95 + 99) / 100 - 1 FROM d)) AS p95`,
  usagePerDay: `SELECT substr(r.created_at, 1, 10) AS day, coalesce(r.model, '') AS model, count(*) AS runs,
      coalesce(sum(json_extract(r.totals, '$.usage.inputTokens')), 0) AS inputTokens,
      coalesce(sum(json_extract(r.totals, '$.usage.outputTokens')), 0) AS outputTokens,
      coalesce(sum(json_extract(r.totals, '$.usage.costUsd')), 0) AS costUsd
    FROM bridle_runs r WHERE ${TOP_LEVEL} GROUP BY 1, 2 ORDER BY 1, 2`,
  slowestTools: `SELECT json_extract(e.data, '$.name') AS name, count(*) AS calls,
      sum(CASE WHEN json_type(e.data, '$.isError') = 'true' THEN 1 ELSE 0 END) AS errors,
      avg(json_extract(e.data, '$.durationMs')) AS meanMs, max(json_extract(e.data, '$.durationMs')) AS maxMs
    FROM bridle_runs r JOIN bridle_run_events e ON e.run_id = r.run_id
    WHERE ${WINDOW} AND e.type = 'tool_end' AND json_type(e.data, '$.name') = 'text'
    GROUP BY 1 ORDER BY meanMs DESC, name LIMIT ${SLOWEST_TOOLS}`,
};

/** The statements of `runsOverview` on one SQLite database, prepared once. */
export type SqliteOverview = (window: { since: string; until?: string; tenant?: string }) => RunsOverview;

/** Prepares `runsOverview`'s aggregates (four reads of the runs table and, for the tools, the journal). */
export function sqliteOverview(db: Database): SqliteOverview {
  const runsPerHour = db.prepare(SQL.runsPerHour);
  const duration = db.prepare(SQL.duration);
  const usagePerDay = db.prepare(SQL.usagePerDay);
  const slowestTools = db.prepare(SQL.slowestTools);
  return (window) => {
    const parameters = { since: window.since, until: window.until ?? null, tenant: window.tenant ?? null };
    const durations = duration.get(parameters) as { runs: number; p50: number | null; p95: number | null };
    return {
      runsPerHour: runsPerHour.all(parameters) as RunsOverview['runsPerHour'],
      duration: {
        runs: durations.runs,
        ...(durations.p50 === null ? {} : { p50Ms: durations.p50 }),
        ...(durations.p95 === null ? {} : { p95Ms: durations.p95 }),
      },
      usagePerDay: usagePerDay.all(parameters) as RunsOverview['usagePerDay'],
      slowestTools: slowestTools.all(parameters) as RunsOverview['slowestTools'],
    };
  };
}
