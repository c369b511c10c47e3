import type { CheckedQuery } from './check-query';
import { RUN_COLUMNS, tenantCondition } from './run-record';
import { TITLE_LINE_CHARS } from './run-title';

/**
 * The SQL of `listRuns` on Postgres: the filters in the inner query, the title's first line (and the search in
 * it) in the outer one, newest first.
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
  if (before !== undefined) add('updated_at <', before);
  // A record made by taking a lease before the run's first append is not a run yet.
  const where = `WHERE ${['last_sequence >= 0', ...conditions].join(' AND ')}`;
  let outer = '';
  if (search !== undefined) {
    parameters.push(search);
    outer = `WHERE strpos(${sqlAsciiLower(FIRST_LINE)}, ${sqlAsciiLower(`$${parameters.length}::text`)}) > 0`;
  }
  parameters.push(limit);
  return {
    text:
      `SELECT ${RUN_COLUMNS}, left(${FIRST_LINE}, ${TITLE_LINE_CHARS}) AS title_line FROM ` +
      `(SELECT ${RUN_COLUMNS}, ltrim(${prompt(sql.events)}, E' \\t\\n\\r') AS prompt FROM ${sql.runs} r ${where}) runs ` +
      `${outer} ORDER BY updated_at DESC, run_id DESC LIMIT $${parameters.length}`,
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
