import type { CheckedQuery } from './check-query';
import { RUN_COLUMNS, tenantCondition } from './run-record';
import { TITLE_LINE_CHARS } from './run-title';

/**
 * A run's title text (run-title.ts `promptOf`): its first run_start's prompt, or the last message when that is
 * the user's; read by primary key from the journal, for the rows listed only.
 */
const PROMPT =
  "(SELECT CASE WHEN json_type(e.data, '$.prompt') = 'text' THEN json_extract(e.data, '$.prompt') " +
  "WHEN json_extract(e.data, '$.messages[#-1].role') = 'user' AND json_type(e.data, '$.messages[#-1].content') = 'text' " +
  "THEN json_extract(e.data, '$.messages[#-1].content') END " +
  "FROM bridle_run_events e WHERE e.run_id = bridle_runs.run_id AND e.type = 'run_start' ORDER BY e.sequence LIMIT 1)";
/** The first line of `prompt` (leading blanks already trimmed): what `search` looks in. */
const FIRST_LINE = 'substr(prompt, 1, instr(prompt || char(10), char(10)) - 1)';

/**
 * A running run's `updated_at`: an append that neither starts nor ends a segment leaves the run's row alone
 * (see sqlite-store.ts), so the time of its last event (kept beside it since schema version 6) is read here.
 */
const RUNNING_UPDATED_AT =
  'max(updated_at, coalesce((SELECT e.time FROM bridle_run_events e WHERE e.run_id = bridle_runs.run_id ' +
  'ORDER BY e.sequence DESC LIMIT 1), updated_at))';

/**
 * The SQL of `listRuns` on SQLite, newest first. Runs that are not running come from the by-time index in
 * order (their row's `updated_at` is exact), running runs (few) with their time read from their last event;
 * the two are merged. The filters, the title's first line and the search apply to both alike.
 */
export function sqliteListRunsQuery(query: CheckedQuery): { key: string; text: string; parameters: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    conditions.push(condition);
    values.push(value);
  };
  if (query.status !== undefined) add('status = ?', query.status);
  // Runs are indexed by their session's key (schema version 8), given in order, not by its random id.
  if (query.sessionId !== undefined)
    add('session_key = (SELECT key FROM bridle_sessions WHERE id = ?)', query.sessionId);
  if (query.tenant !== undefined) add(tenantCondition(query.tenant), query.tenant);
  if (query.model !== undefined) add('model = ?', query.model);
  if (query.since !== undefined) add('created_at >= ?', query.since);
  // A record made by taking a lease before the run's first append is not a run yet.
  const where = ['last_sequence >= 0', ...conditions];
  const before = query.before === undefined ? [] : ['updated_at < ?'];
  const search = query.search === undefined ? [] : [`instr(lower(${FIRST_LINE}), lower(?)) > 0`];
  const filter = (list: string[]) => (list.length === 0 ? '' : ` WHERE ${list.join(' AND ')}`);
  const order = 'ORDER BY updated_at DESC, run_id DESC LIMIT ?';
  const titled = (from: string) =>
    `SELECT ${RUN_COLUMNS}, ltrim(${PROMPT}, char(32, 9, 10, 13)) AS prompt FROM ${from} AS bridle_runs`;
  const ended =
    `SELECT * FROM (SELECT ${RUN_COLUMNS}, prompt FROM (${titled(`(SELECT * FROM bridle_runs${filter([...where, "status <> 'running'", ...before])})`)})` +
    `${filter(search)} ${order})`;
  // The running runs' times first, then (without a search) only the newest of them get their title read.
  const times =
    `SELECT * FROM (SELECT ${RUN_COLUMNS.replace('updated_at', `${RUNNING_UPDATED_AT} AS updated_at`)} FROM bridle_runs` +
    `${filter([...where, "status = 'running'"])})${filter(before)}${search.length === 0 ? ` ${order}` : ''}`;
  const running = `SELECT * FROM (SELECT ${RUN_COLUMNS}, prompt FROM (${titled(`(${times})`)})${filter(search)} ${order})`;
  const text =
    `SELECT ${RUN_COLUMNS}, substr(${FIRST_LINE}, 1, ${TITLE_LINE_CHARS}) AS title_line FROM ` +
    `(${ended} UNION ALL ${running}) ${order}`;
  const branch = [...values, ...(query.before === undefined ? [] : [query.before])];
  const searched = query.search === undefined ? [] : [query.search];
  const parameters = [
    ...branch,
    ...searched,
    query.limit,
    ...branch,
    ...(query.search === undefined ? [query.limit] : []),
    ...searched,
    query.limit,
    query.limit,
  ];
  return {
    key: `${conditions.join(' AND ')}|${before.length}|${search.length}`,
    text,
    parameters,
  };
}
