import { describeValue, type ListRunsQuery, type ListSessionsQuery } from '@bridle/protocol';
import { checkId, checkTime } from './check-id';
import { MAX_LIST_LIMIT } from './limits';
import { StoreError } from './store-error';

/** A checked listing query: `limit` resolved, `before` canonical. */
export interface CheckedQuery {
  limit: number;
  before?: string;
  status?: string;
  sessionId?: string;
}

/** Checks a `listRuns` / `listSessions` query; throws `StoreError` (`invalid_input`) naming the bad field. */
export function checkQuery(
  method: 'listRuns' | 'listSessions',
  query: ListRunsQuery & ListSessionsQuery = {},
): CheckedQuery {
  if (typeof query !== 'object' || query === null) {
    throw new StoreError('invalid_input', `${method}: the query must be an object, got ${describeValue(query)}`);
  }
  const { limit = 50, before, status, sessionId } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new StoreError(
      'invalid_input',
      `${method}: limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got ${describeValue(limit)}; page with 'before'`,
    );
  }
  const checked: CheckedQuery = { limit };
  if (before !== undefined) {
    try {
      checked.before = checkTime(before, 'before');
    } catch (error) {
      throw new StoreError('invalid_input', `${method}: ${(error as Error).message}`);
    }
  }
  if (method === 'listRuns') {
    if (status !== undefined) {
      if (typeof status !== 'string' || status === '') {
        throw new StoreError(
          'invalid_input',
          `listRuns: status must be a non-empty string, got ${describeValue(status)}`,
        );
      }
      checked.status = status;
    }
    if (sessionId !== undefined) {
      checkId(sessionId, 'listRuns: sessionId');
      checked.sessionId = sessionId;
    }
  }
  return checked;
}
