import { redactCredentials } from '@bridle/protocol/internal';
import type { FastifyInstance } from 'fastify';
import { queuedModelId } from '../queued-runs';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';

/**
 * `GET /health`: the process answers (liveness). `GET /ready`: it should get traffic: a model is
 * configured (its keys are present; no request is made to the provider) and it is not shutting down.
 * Both are open without the token (load balancers call them), so `/ready` shows only its status to a
 * request without the token; with it (or when the server has none), also the model id and the runs in
 * flight. The model id never shows credentials (user info and query strings of its URL are removed).
 */
export function registerHealthRoutes(app: FastifyInstance, context: ServerContext): void {
  // Probes are never rate limited, and need no token (`security: []` in the OpenAPI document).
  const probe = (summary: string) => ({
    config: { rateLimit: false },
    schema: { summary, tags: ['health'], security: [] },
  });
  app.get('/health', probe('Liveness: the process answers'), async () => ({ status: 'ok' }));
  app.get('/ready', probe('Readiness: a model is configured and the server is not shutting down'), async (request) => {
    if (context.state.shuttingDown) throw new ServerError('shutting_down', 'The server is shutting down.');
    const authorized = context.isAuthorized(request);
    if (context.queue) {
      // Workers run the runs: ready when there is a model id to give them.
      const modelId = queuedModelId(context.queue);
      if (!authorized) return { status: 'ready' };
      return { status: 'ready', model: redactCredentials(modelId), activeRuns: context.limiter.active };
    }
    if (!authorized && 'error' in context.modelSource) {
      throw new ServerError('not_ready', 'The server is not ready: no model is available.', { retryAfterSeconds: 30 });
    }
    const model = requireModel(context);
    if (!authorized) return { status: 'ready' };
    return { status: 'ready', model: redactCredentials(model.id), activeRuns: context.limiter.active };
  });
}
