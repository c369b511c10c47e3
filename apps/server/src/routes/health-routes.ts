import type { FastifyInstance } from 'fastify';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';

/**
 * `GET /health`: the process answers (liveness). `GET /ready`: it should get traffic: a model is
 * configured (its keys are present; no request is made to the provider) and it is not shutting down.
 */
export function registerHealthRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async () => {
    if (context.state.shuttingDown) throw new ServerError('shutting_down', 'The server is shutting down.');
    const model = requireModel(context);
    return { status: 'ready', model: model.id, activeRuns: context.limiter.active };
  });
}
