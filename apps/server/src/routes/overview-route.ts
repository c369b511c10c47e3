import type { RunsOverview } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { callerOf } from '../tenant-auth';

/** The window `GET /api/overview` covers without `since`: the last 24 hours. */
export const DEFAULT_OVERVIEW_MS = 24 * 3_600_000;

const OVERVIEW_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    since: {
      type: 'string',
      format: 'date-time',
      description: 'runs created at or after this time (default: 24 hours ago)',
    },
    until: { type: 'string', format: 'date-time', description: 'runs created before this time (default: now on)' },
  },
} as const;

/**
 * `GET /api/overview`: where the time and money went over a window (`Store.runsOverview`, computed by the
 * store in SQL): runs per hour by status, p50/p95 duration, tokens and cost per day per model, the slowest
 * tools. Model ids are shown without credentials. A store without `runsOverview` answers 501.
 */
export function registerOverviewRoute(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Querystring: { since?: string; until?: string } }>(
    '/overview',
    { schema: { querystring: OVERVIEW_QUERY, summary: 'Aggregates of the runs of a window', tags: ['api'] } },
    async (request) => {
      const store = context.store;
      if (store.runsOverview === undefined) {
        throw new ServerError(
          'not_implemented',
          "This server's store has no runsOverview: use a store of @bridle/store (memory:, sqlite:, postgres:).",
        );
      }
      const since = new Date(request.query.since ?? Date.now() - DEFAULT_OVERVIEW_MS).toISOString();
      const until = request.query.until === undefined ? undefined : new Date(request.query.until).toISOString();
      if (until !== undefined && until <= since) {
        throw new ServerError('bad_request', `Invalid request: until (${until}) must come after since (${since}).`);
      }
      // Only the caller's tenant's runs, aggregated by the store.
      const overview: RunsOverview = await store.runsOverview({
        since,
        ...(until === undefined ? {} : { until }),
        tenant: callerOf(request).tenant,
      });
      return {
        since,
        ...(until === undefined ? {} : { until }),
        ...overview,
        usagePerDay: overview.usagePerDay.map((row) => ({ ...row, model: redactCredentials(row.model) })),
      };
    },
  );
}
