import type { FastifyInstance, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { sendNotFound } from './error-handler';
import { installOpenAIErrorHandling } from './openai/openai-error';
import { registerA2ARoutes } from './routes/a2a-routes';
import { registerApprovalsRoute } from './routes/approvals-route';
import { registerBatchRoutes } from './routes/batch-route';
import { registerChatRoute } from './routes/chat-route';
import { registerHealthRoutes } from './routes/health-routes';
import { registerOpenAIChatRoute } from './routes/openai-chat-route';
import { registerOpenAIModelsRoutes } from './routes/openai-models-route';
import { registerOpenAIResponsesRoute } from './routes/openai-responses-route';
import { registerOverviewRoute } from './routes/overview-route';
import { registerRunEventsRoute } from './routes/run-events-route';
import { registerRunRoutes } from './routes/run-routes';
import { registerSessionRoutes } from './routes/session-routes';
import { registerSteerRoutes } from './routes/steer-routes';
import { registerUiChatRoute } from './routes/ui-chat-route';
import { registerUsageRoute } from './routes/usage-route';
import { registerWebRoutes } from './routes/web-routes';
import type { requestSchemas } from './schemas';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import { authorizeRequest, scopeOfRoute } from './tenant-auth';
import { checkRequestQuotas, hasRequestQuotas } from './tenant-quotas';

/**
 * Registers every route: `/health` and `/ready` (open, not rate limited), the web inspector at `/`
 * (its page is public; its API calls carry the token), and behind the token check
 * `/openapi.json`, `/api/*` (Bridle's error shape) and `/v1/*` (OpenAI's error shape). Unknown paths
 * under `/api` and `/v1` answer 404 only after the token check: route names cannot be probed without it.
 */
export function registerRoutes(
  app: FastifyInstance,
  context: ServerContext,
  schemas: ReturnType<typeof requestSchemas>,
): void {
  // Callback style: it runs on every request, and an async hook costs a promise each.
  const guard = (request: FastifyRequest, _reply: unknown, done: HookHandlerDoneFunction) => {
    if (context.state.shuttingDown) {
      done(
        new ServerError('shutting_down', 'The server is shutting down: retry on another instance.', {
          retryAfterSeconds: 5,
        }),
      );
      return;
    }
    try {
      const scope = scopeOfRoute(request.method, request.routeOptions.url);
      const caller = authorizeRequest(context.auth, request, scope);
      const quotas = context.auth.quotasOf(caller.tenant);
      // Most tenants have no request quota: their requests go on without a promise.
      if (!hasRequestQuotas(quotas)) {
        done();
        return;
      }
      const startsRun = request.method === 'POST' && (scope === 'chat' || scope === 'approve');
      checkRequestQuotas(context.ledger, caller, quotas, startsRun).then(() => done(), done);
    } catch (error) {
      done(error as Error);
    }
  };
  app.register(async (root) => {
    registerHealthRoutes(root, context);
    registerWebRoutes(root);
    root.register(async (docs) => {
      docs.addHook('onRequest', guard);
      docs.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    });
  });
  app.register(
    async (api) => {
      api.addHook('onRequest', guard);
      api.setNotFoundHandler(sendNotFound);
      registerChatRoute(api, context, schemas.chatBody);
      registerSessionRoutes(api, context, schemas.idParams);
      registerRunRoutes(api, context, schemas.runParams);
      registerOverviewRoute(api, context);
      registerRunEventsRoute(api, context, schemas.runParams);
      registerApprovalsRoute(api, context, schemas.runParams);
      registerSteerRoutes(api, context, schemas.runParams);
      registerBatchRoutes(api, context, { body: schemas.batchBody, params: schemas.idParams });
      registerUsageRoute(api, context);
      registerUiChatRoute(api, context);
    },
    { prefix: '/api' },
  );
  app.register(
    async (v1) => {
      v1.addHook('onRequest', guard);
      installOpenAIErrorHandling(v1);
      registerOpenAIModelsRoutes(v1, context);
      registerOpenAIChatRoute(v1, context, { body: schemas.openAIChatBody });
      registerOpenAIResponsesRoute(v1, context, { body: schemas.openAIResponsesBody });
    },
    { prefix: '/v1' },
  );
  app.register(async (a2a) => {
    a2a.addHook('onRequest', guard);
    registerA2ARoutes(a2a, context);
  });
}
