import type { CheckedQuery } from './check-query';
import { RUN_COLUMNS, tenantCondition } from './run-record';
import { TITLE_LINE_CHARS } from './run-title';

/**
 * A running run's `updated_at`: an append that neither starts nor ends a segment leaves the run's row alone
 * (see postgres-store.ts), so the time of its last event (kept beside it since schema version 5; null before)
 * is read here, by the journal's primary key.
 */
function runningUpdatedAt(events: string): string {
  return `greatest(r.updated_at, (SELECT e.time FROM ${events} e WHERE e.run_id = r.run_id ORDER BY e.sequence DESC LIMIT 1))`;
}

/**
 * The SQL of `listRuns` on Postgres, newest first. Runs that are not running come from the by-time indexes in
 * order (their row's `updated_at` is exact), running runs (few) with their time read from their last event;
 * the two are merged. The filters, the title's first line (and the search in it) apply to both alike.
 */
export function listRunsQuery(
  sql: { runs: string; events: string },
  query: CheckedQuery,
): { text: string; parameters: unknown[] } {
  const { limit, before, status, sessionId, tenant, model, search, since } = query;
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    parameters.push(value);
    conditions.push(`${condition} $${parameters.length}`);
  };
  if (status !== undefined) add('status =', status);
  if (sessionId !== undefined) add('session_id =', sessionId);
  if (tenant !== undefined) {
    parameters.push(tenant);
    conditions.push(tenantCondition(tenant).replace('?', `$${parameters.length}`));
  }
  if (model !== undefined) add('model =', model);
  if (since !== undefined) add('created_at >=', since);
  // A record made by taking a lease before the run's first append is not a run yet.
  const where = ['last_sequence >= 0', ...conditions];
  const older: string[] = [];
  if (before !== undefined) {
    parameters.push(before);
    older.push(`updated_at < $${parameters.length}`);
  }
  const searched: string[] = [];
  if (search !== undefined) {
    parameters.push(search);
    searched.push(`strpos(${sqlAsciiLower(FIRST_LINE)}, ${sqlAsciiLower(`$${parameters.length}::text`)}) > 0`);
  }
  parameters.push(limit);
  const filter = (list: string[]) => (list.length === 0 ? '' : ` WHERE ${list.join(' AND ')}`);
  const order = `ORDER BY updated_at DESC, run_id DESC LIMIT $${parameters.length}`;
  const titled = (from: string) =>
    `SELECT * FROM (SELECT ${RUN_COLUMNS}, ltrim(${prompt(sql.events)}, E' \\t\\n\\r') AS prompt FROM ${from} r) titled` +
    `${filter(searched)} ${order}`;
  const ended = titled(`(SELECT * FROM ${sql.runs}${filter([...where, "status <> 'running'", ...older])})`);
  const times =
    `SELECT ${RUN_COLUMNS.replace('updated_at', `${runningUpdatedAt(sql.events)} AS updated_at`)} FROM ${sql.runs} r` +
    filter([...where, "status = 'running'"]);
  const running = titled(`(SELECT * FROM (${times}) timed${filter(older)})`);
  return {
    text:
      `SELECT ${RUN_COLUMNS}, left(${FIRST_LINE}, ${TITLE_LINE_CHARS}) AS title_line FROM ` +
      `((${ended}) UNION ALL (${running})) runs ${order}`,
    parameters,
  };
}

/**
 * A run's title text (run-title.ts `promptOf`) from the journal table `events`: its first run_start's prompt,
 * or the last message when that is the user's; read by primary key, for the rows listed only.
 */
function prompt(events: string): string {
  const data = '(e.data::jsonb)';
  return (
    `(SELECT CASE WHEN jsonb_typeof(${data}->'prompt') = 'string' THEN ${data}->>'prompt' ` +
    `WHEN ${data}->'messages'->-1->>'role' = 'user' AND jsonb_typeof(${data}->'messages'->-1->'content') = 'string' ` +
    `THEN ${data}->'messages'->-1->>'content' END ` +
    `FROM ${events} e WHERE e.run_id = r.run_id AND e.type = 'run_start' ORDER BY e.sequence LIMIT 1)`
  );
}

/** The first line of `prompt` (leading blanks already trimmed): what `search` looks in. */
const FIRST_LINE = "split_part(prompt, E'\\n', 1)";

/** Lower case of ASCII letters only, as SQLite's `lower()` (Postgres' follows the database's locale). */
function sqlAsciiLower(text: string): string {
  return `translate(${text}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
}
