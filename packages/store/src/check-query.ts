import {
  describeValue,
  type ListRunsQuery,
  type ListSessionsQuery,
  type ReadEventsQuery,
  type RunsOverviewQuery,
} from '@bridle/protocol';
import { checkId, checkTime } from './check-id';
import { MAX_LIST_LIMIT, MAX_SEQUENCE } from './limits';
import { StoreError } from './store-error';

/** A checked listing query: `limit` resolved, `before` canonical. */
export interface CheckedQuery {
  limit: number;
  before?: string;
  status?: string;
  sessionId?: string;
  tenant?: string;
  model?: string;
  search?: string;
  since?: string;
}

/** The longest `listRuns` search text, in characters. */
export const MAX_SEARCH_CHARS = 200;

/** Checks a `listRuns` / `listSessions` query; throws `StoreError` (`invalid_input`) naming the bad field. */
export function checkQuery(
  method: 'listRuns' | 'listSessions',
  query: ListRunsQuery & ListSessionsQuery = {},
): CheckedQuery {
  if (typeof query !== 'object' || query === null) {
    throw new StoreError('invalid_input', `${method}: the query must be an object, got ${describeValue(query)}`);
  }
  const { limit = 50, before, status, sessionId, tenant, model, search, since } = query;
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
  if (tenant !== undefined) {
    checkId(tenant, `${method}: tenant`);
    checked.tenant = tenant;
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
    if (model !== undefined) {
      checkId(model, 'listRuns: model');
      checked.model = model;
    }
    if (search !== undefined) {
      if (typeof search !== 'string' || search === '' || search.length > MAX_SEARCH_CHARS) {
        throw new StoreError(
          'invalid_input',
          `listRuns: search must be a string of 1 to ${MAX_SEARCH_CHARS} characters, got ${describeValue(search)}`,
        );
      }
      checked.search = search;
    }
    if (since !== undefined) {
      try {
        checked.since = checkTime(since, 'since');
      } catch (error) {
        throw new StoreError('invalid_input', `listRuns: ${(error as Error).message}`);
      }
    }
  }
  return checked;
}

/** Checks a `readEvents` query; throws `StoreError` (`invalid_input`) naming the bad field. */
export function checkEventsQuery(query: ReadEventsQuery): Required<ReadEventsQuery> {
  if (typeof query !== 'object' || query === null) {
    throw new StoreError('invalid_input', `readEvents: the query must be an object, got ${describeValue(query)}`);
  }
  const { after, limit = MAX_LIST_LIMIT } = query;
  if (!Number.isInteger(after) || after < -1 || after > MAX_SEQUENCE) {
    throw new StoreError(
      'invalid_input',
      `readEvents: after must be an integer from -1 to ${MAX_SEQUENCE} (the last sequence read), got ${describeValue(after)}`,
    );
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new StoreError(
      'invalid_input',
      `readEvents: limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got ${describeValue(limit)}; read again after the last event for more`,
    );
  }
  return { after, limit };
}

/** Checks a `runsOverview` query; throws `StoreError` (`invalid_input`) naming the bad field. */
export function checkOverviewQuery(query: RunsOverviewQuery): { since: string; until?: string; tenant?: string } {
  if (typeof query !== 'object' || query === null) {
    throw new StoreError('invalid_input', `runsOverview: the query must be an object, got ${describeValue(query)}`);
  }
  if (query.tenant !== undefined && (typeof query.tenant !== 'string' || query.tenant === '')) {
    throw new StoreError(
      'invalid_input',
      `runsOverview: tenant must be a non-empty string, got ${describeValue(query.tenant)}`,
    );
  }
  const tenant = query.tenant === undefined ? {} : { tenant: query.tenant };
  try {
    const since = checkTime(query.since, 'since');
    if (query.until === undefined) return { since, ...tenant };
    const until = checkTime(query.until, 'until');
    if (until <= since) {
      throw new Error(`until (${until}) must come after since (${since})`);
    }
    return { since, until, ...tenant };
  } catch (error) {
    throw new StoreError('invalid_input', `runsOverview: ${(error as Error).message}`);
  }
}
