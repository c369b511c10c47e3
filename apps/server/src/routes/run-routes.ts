import type { FastifyInstance } from 'fastify';
import { runDetail, runRow } from '../run-views';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { readOwnRun, runNotFound } from '../tenant-access';
import { callerOf } from '../tenant-auth';

/** How many waiting runs `GET /api/runs` counts at most (`awaitingApproval`; more reads as this number). */
export const MAX_AWAITING_COUNT = 200;

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
    model: { type: 'string', minLength: 1, maxLength: 256, description: "only runs of this model id (the run's own)" },
    search: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: "only runs whose title (the prompt's first line) contains this text, ASCII case ignored",
    },
    since: { type: 'string', format: 'date-time', description: 'only runs created at or after this time' },
  },
} as const;

type RunsQuerystring = Partial<
  Record<'limit' | 'status' | 'sessionId' | 'before' | 'model' | 'search' | 'since', string>
>;

/**
 * `GET /api/runs` (newest first, from the store: every journaled run, also those of other processes on
 * the same store) and `GET /api/runs/:id` (its events and, when paused, its pending calls and state).
 * Model ids are shown without credentials.
 */
export function registerRunRoutes(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.get<{ Querystring: RunsQuerystring }>(
    '/runs',
    { schema: { querystring: RUNS_QUERY, summary: 'List runs, newest first', tags: ['api'] } },
    async (request) => {
      const { limit: limitText, status, sessionId, before, model, search, since } = request.query;
      const limit = limitText === undefined ? 50 : Number(limitText);
      if (limit > 200) {
        throw new ServerError('bad_request', `Invalid request: querystring.limit must be at most 200, got ${limit}.`);
      }
      const summaries = await context.store.listRuns({
        limit,
        // Only the caller's tenant's runs, filtered by the store (paging stays exact).
        tenant: callerOf(request).tenant,
        ...(status === undefined ? {} : { status }),
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(before === undefined ? {} : { before: new Date(before).toISOString() }),
        ...(model === undefined ? {} : { model }),
        ...(search === undefined ? {} : { search }),
        ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
      });
      // The console shows how many runs wait for a person whatever the filters (the status index keeps it cheap).
      const waiting = context.store.listRuns({
        status: 'awaiting_approval',
        tenant: callerOf(request).tenant,
        limit: MAX_AWAITING_COUNT,
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
      return { runs, awaitingApproval: (await waiting).length };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/runs/:id',
    {
      schema: { params: paramsSchema, summary: 'One run: status, pending approvals, state and events', tags: ['api'] },
    },
    async (request) => {
      const run = await readOwnRun(context, callerOf(request), request.params.id);
      if (!run) throw runNotFound(request.params.id);
      return runDetail(run);
    },
  );
}
