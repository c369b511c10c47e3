import type { FastifyInstance } from 'fastify';
import { AGENT_MODEL_PREFIX, agentFor, agentModels } from '../openai/agent-models';
import type { ServerContext } from '../server-context';

/**
 * `GET /v1/models`: the agents of this server as OpenAI models (`bridle:<skill>`), and
 * `GET /v1/models/:model` one of them (404 `model_not_found` otherwise).
 */
export function registerOpenAIModelsRoutes(app: FastifyInstance, context: ServerContext): void {
  const created = Math.floor(Date.now() / 1000);
  app.get('/models', { schema: { summary: 'The agents of this server, as models', tags: ['openai'] } }, async () => ({
    object: 'list',
    data: agentModels(context, created),
  }));
  app.get<{ Params: { model: string } }>(
    '/models/:model',
    {
      schema: {
        summary: 'One agent, as a model',
        tags: ['openai'],
        params: {
          type: 'object',
          required: ['model'],
          properties: { model: { type: 'string', description: `${AGENT_MODEL_PREFIX}<skill>` } },
        },
      },
    },
    async (request) => {
      agentFor(context, request.params.model);
      return agentModels(context, created).find((model) => model.id === request.params.model);
    },
  );
}
