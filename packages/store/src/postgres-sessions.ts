import type { ListSessionsQuery, SessionSummary, StoredSession } from '@bridle/protocol';
import { checkId } from './check-id';
import { checkQuery } from './check-query';
import type { StoreLimits } from './limits';
import type { statements } from './postgres-statements';
import { decodeSession, prepareSession, sessionRow } from './prepare-session';
import { SESSION_COLUMNS, type SessionRecord, tenantCondition, toSessionSummary } from './run-record';

/** Runs one statement on the store's pool and gives its rows (errors already made `StoreError`s). */
export type PostgresQuery = <T extends object>(text: string, values: unknown[]) => Promise<T[]>;

/** The store's SQL statements. */
export type PostgresStatements = ReturnType<typeof statements>;

/** The Postgres store's sessions: one row each in the sessions table. */
export async function getPostgresSession(
  query: PostgresQuery,
  sql: PostgresStatements,
  id: string,
): Promise<StoredSession | undefined> {
  checkId(id, 'getSession: id');
  const rows = await query<{ data: string }>(sql.getSession, [id]);
  return rows[0] && decodeSession(id, rows[0].data);
}

export async function savePostgresSession(
  query: PostgresQuery,
  sql: PostgresStatements,
  session: StoredSession,
  limits: StoreLimits,
): Promise<void> {
  await query(sql.saveSession, sessionRow(prepareSession(session, limits)));
}

export async function deletePostgresSession(
  query: PostgresQuery,
  sql: PostgresStatements,
  id: string,
): Promise<boolean> {
  checkId(id, 'deleteSession: id');
  const rows = await query<{ id: string }>(sql.deleteSession, [id]);
  return rows.length > 0;
}

export async function listPostgresSessions(
  query: PostgresQuery,
  sql: PostgresStatements,
  options: ListSessionsQuery | undefined,
): Promise<SessionSummary[]> {
  const { limit, before, tenant } = checkQuery('listSessions', options);
  if (tenant === undefined) {
    const records =
      before === undefined
        ? await query<SessionRecord>(sql.listSessions, [limit])
        : await query<SessionRecord>(sql.listSessionsBefore, [before, limit]);
    return records.map(toSessionSummary);
  }
  const parameters: unknown[] = [tenant];
  const conditions = [tenantCondition(tenant).replace('?', '$1')];
  if (before !== undefined) {
    parameters.push(before);
    conditions.push(`updated_at < $${parameters.length}`);
  }
  parameters.push(limit);
  const rows = await query<SessionRecord>(
    `SELECT ${SESSION_COLUMNS} FROM ${sql.sessions} WHERE ${conditions.join(' AND ')} ORDER BY updated_at DESC, id DESC LIMIT $${parameters.length}`,
    parameters,
  );
  return rows.map(toSessionSummary);
}
