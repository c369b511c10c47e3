import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';

/** `DELETE /api/sessions/:id`: forgets a conversation (204), 404 when unknown, 409 while it is running. */
export function registerSessionRoutes(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.delete<{ Params: { id: string } }>(
    '/sessions/:id',
    { schema: { params: paramsSchema, summary: 'Forget a session', tags: ['api'] } },
    async (request, reply) => {
      const { id } = request.params;
      if (context.busySessions.has(id)) {
        throw new ServerError(
          'session_busy',
          `Session ${id} is running a prompt: delete it once the answer has arrived.`,
        );
      }
      if (!(await context.sessions.delete(id))) {
        throw new ServerError('not_found', `Session ${id} does not exist (deleted, expired, or never created here).`);
      }
      return reply.code(204).send();
    },
  );
}
