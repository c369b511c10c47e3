import type { FastifyInstance } from 'fastify';
import { runDetail, runRow } from '../run-views';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';

/** The query of `GET /api/runs`. */
export interface RunsQuery {
  limit?: number;
  status?: string;
  sessionId?: string;
  before?: string;
}

const RUNS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,2}$',
      description: 'at most this many runs, 1 to 200 (default 50)',
    },
    status: {
      type: 'string',
      pattern: '^[a-z_]{1,40}$',
      description: 'only runs with this status (e.g. awaiting_approval)',
    },
    sessionId: { type: 'string', maxLength: 256, description: 'only the runs of this session' },
    before: { type: 'string', format: 'date-time', description: 'only runs updated before this time (paging)' },
  },
} as const;

/**
 * `GET /api/runs` (newest first, from the store: every journaled run, also those of other processes on
 * the same store) and `GET /api/runs/:id` (its events and, when paused, its pending calls and state).
 * Model ids are shown without credentials.
 */
export function registerRunRoutes(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.get<{ Querystring: { limit?: string; status?: string; sessionId?: string; before?: string } }>(
    '/runs',
    { schema: { querystring: RUNS_QUERY, summary: 'List runs, newest first', tags: ['api'] } },
    async (request) => {
      const { limit: limitText, status, sessionId, before } = request.query;
      const limit = limitText === undefined ? 50 : Number(limitText);
      if (limit > 200) {
        throw new ServerError('bad_request', `Invalid request: querystring.limit must be at most 200, got ${limit}.`);
      }
      const summaries = await context.store.listRuns({
        limit,
        ...(status === undefined ? {} : { status }),
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(before === undefined ? {} : { before: new Date(before).toISOString() }),
      });
      // The summary carries the run_end totals; only a run that ended before its store kept totals (a
      // journal written by an earlier @bridle/store) is read in full.
      const runs = await Promise.all(
        summaries.map(async (summary) =>
          summary.status === 'running' || summary.steps !== undefined
            ? runRow(summary)
            : runRow(summary, await context.store.readRun(summary.runId)),
        ),
      );
      return { runs };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/runs/:id',
    {
      schema: { params: paramsSchema, summary: 'One run: status, pending approvals, state and events', tags: ['api'] },
    },
    async (request) => {
      const run = await context.store.readRun(request.params.id);
      if (!run) {
        throw new ServerError(
          'not_found',
          `Run ${request.params.id} does not exist in this server's store (BRIDLE_STORE).`,
        );
      }
      return runDetail(run);
    },
  );
}
