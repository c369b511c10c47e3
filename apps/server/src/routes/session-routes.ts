import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { getOwnSession, sessionNotFound } from '../tenant-access';
import { callerOf } from '../tenant-auth';

const SESSIONS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,2}$',
      description: 'at most this many sessions, 1 to 200 (default 50)',
    },
    before: { type: 'string', format: 'date-time', description: 'only sessions updated before this time (paging)' },
  },
} as const;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `GET /api/sessions` (newest first, without messages), `GET /api/sessions/:id` (the transcript, and the
 * run waiting for approval if any), `DELETE /api/sessions/:id` (204, 404 when unknown, 409 while running).
 */
export function registerSessionRoutes(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.get<{ Querystring: { limit?: string; before?: string } }>(
    '/sessions',
    { schema: { querystring: SESSIONS_QUERY, summary: 'List sessions, newest first', tags: ['api'] } },
    async (request) => {
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      if (limit > 200) {
        throw new ServerError('bad_request', `Invalid request: querystring.limit must be at most 200, got ${limit}.`);
      }
      if (!context.sessions.list) {
        throw new ServerError(
          'bad_request',
          'The configured sessionStore cannot list sessions (it has no list method).',
        );
      }
      const before = request.query.before === undefined ? undefined : Date.parse(request.query.before);
      const rows = await context.sessions.list({
        limit,
        tenant: callerOf(request).tenant,
        ...(before === undefined ? {} : { before }),
      });
      return {
        sessions: rows.map(({ tenant: _tenant, ...row }) => ({
          ...row,
          createdAt: iso(row.createdAt),
          updatedAt: iso(row.updatedAt),
        })),
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/sessions/:id',
    { schema: { params: paramsSchema, summary: 'One session: its transcript', tags: ['api'] } },
    async (request) => {
      const session = await getOwnSession(context, callerOf(request), request.params.id);
      if (!session) throw sessionNotFound(request.params.id);
      return {
        id: session.id,
        messages: session.messages,
        createdAt: iso(session.createdAt),
        updatedAt: iso(session.updatedAt),
        ...(session.skill === undefined ? {} : { skill: session.skill }),
        ...(session.pendingRunId === undefined ? {} : { pendingRunId: session.pendingRunId }),
      };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/sessions/:id',
    { schema: { params: paramsSchema, summary: 'Forget a session', tags: ['api'] } },
    async (request, reply) => {
      const { id } = request.params;
      // Another tenant's session reads as unknown, busy or not.
      if (!(await getOwnSession(context, callerOf(request), id))) throw sessionNotFound(id);
      if (context.busySessions.has(id)) {
        throw new ServerError(
          'session_busy',
          `Session ${id} is running a prompt: delete it once the answer has arrived.`,
        );
      }
      if (!(await context.sessions.delete(id))) throw sessionNotFound(id);
      return reply.code(204).send();
    },
  );
}
