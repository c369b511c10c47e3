import { DEFAULT_TENANT, type RunsOverview } from '@bridle/protocol';
import { SLOWEST_TOOLS } from './memory-overview';

type Query = <T extends object>(text: string, values: unknown[]) => Promise<T[]>;

/** The SQL of `runsOverview` over the (quoted) tables `runs` and `events`; $1 is `since`, $2 `until`, $3 the tenant (or null). */
function sql(runs: string, events: string) {
  const firstStart = `(SELECT e.data::jsonb FROM ${events} e WHERE e.run_id = r.run_id AND e.type = 'run_start' ORDER BY e.sequence LIMIT 1)`;
  // $3 is a tenant (null: every run); the default tenant also owns runs journaled without one.
  const window = `r.created_at >= $1 AND ($2::text IS NULL OR r.created_at < $2::text)
    AND ($3::text IS NULL OR r.tenant = $3::text OR ($3::text = '${DEFAULT_TENANT}' AND r.tenant IS NULL))`;
  const topLevel = `${window} AND (${firstStart}->'parent') IS NULL`;
  const totals = '(r.totals::jsonb)';
  const number = (path: string) => `CASE WHEN jsonb_typeof(${path}) = 'number' THEN (${path})::text::float8 END`;
  const data = '(e.data::jsonb)';
  return {
    runsPerHour: `SELECT substr(r.created_at, 1, 13) || ':00:00.000Z' AS hour, r.status AS status, count(*)::int AS runs
      FROM ${runs} r WHERE ${topLevel} GROUP BY 1, 2 ORDER BY 1, 2`,
    // percentile_disc is the nearest rank: the smallest value whose share of the runs reaches the fraction.
    duration: `SELECT count(ms)::int AS runs, percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
        percentile_disc(0.95) WITHIN GROUP (ORDER BY ms) AS p95
      FROM (SELECT ${number(`${totals}->'durationMs'`)} AS ms FROM ${runs} r WHERE ${topLevel}) d`,
    usagePerDay: `SELECT * FROM (SELECT substr(r.created_at, 1, 10) AS day, coalesce(r.model, '') AS model, count(*)::int AS runs,
        coalesce(sum(${number(`${totals}->'usage'->'inputTokens'`)}), 0) AS "inputTokens",
        coalesce(sum(${number(`${totals}->'usage'->'outputTokens'`)}), 0) AS "outputTokens",
        coalesce(sum(${number(`${totals}->'usage'->'costUsd'`)}), 0) AS "costUsd"
      FROM ${runs} r WHERE ${topLevel} GROUP BY 1, 2) days
      ORDER BY day COLLATE "C", model COLLATE "C"`,
    slowestTools: `SELECT * FROM (SELECT ${data}->>'name' AS name, count(*)::int AS calls,
        count(*) FILTER (WHERE ${data}->'isError' = 'true'::jsonb)::int AS errors,
        avg(${number(`${data}->'durationMs'`)}) AS "meanMs", max(${number(`${data}->'durationMs'`)}) AS "maxMs"
      FROM ${runs} r JOIN ${events} e ON e.run_id = r.run_id
      WHERE ${window} AND e.type = 'tool_end' AND jsonb_typeof(${data}->'name') = 'string'
      GROUP BY 1) tools
      ORDER BY "meanMs" DESC, name COLLATE "C" LIMIT ${SLOWEST_TOOLS}`,
  };
}

const numbers = <T extends Record<string, unknown>>(row: T, keys: (keyof T)[]): T => {
  const copy = { ...row };
  for (const key of keys) copy[key] = Number(row[key]) as T[keyof T];
  return copy;
};

/** `runsOverview` of the Postgres store: four aggregate queries (run in turn on the pool). */
export async function postgresOverview(
  query: Query,
  tables: { runs: string; events: string },
  window: { since: string; until?: string; tenant?: string },
): Promise<RunsOverview> {
  const text = sql(tables.runs, tables.events);
  const values = [window.since, window.until ?? null, window.tenant ?? null];
  const [hours, durations, days, tools] = await Promise.all([
    query<RunsOverview['runsPerHour'][number]>(text.runsPerHour, values),
    query<{ runs: number; p50: number | null; p95: number | null }>(text.duration, values),
    query<RunsOverview['usagePerDay'][number]>(text.usagePerDay, values),
    query<RunsOverview['slowestTools'][number]>(text.slowestTools, values),
  ]);
  const duration = durations[0] ?? { runs: 0, p50: null, p95: null };
  return {
    runsPerHour: hours,
    duration: {
      runs: duration.runs,
      ...(duration.p50 === null ? {} : { p50Ms: Number(duration.p50) }),
      ...(duration.p95 === null ? {} : { p95Ms: Number(duration.p95) }),
    },
    usagePerDay: days.map((row) => numbers(row, ['inputTokens', 'outputTokens', 'costUsd'])),
    slowestTools: tools.map((row) => numbers(row, ['meanMs', 'maxMs'])),
  };
}
