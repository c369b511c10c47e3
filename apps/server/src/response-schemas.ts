import type { FastifyInstance, RouteOptions } from 'fastify';

/** An object schema that documents `properties` and lets any other field through. */
const object = (properties: Record<string, object> = {}, description?: string) => ({
  type: 'object',
  additionalProperties: true,
  properties,
  ...(description === undefined ? {} : { description }),
});
const string = (description?: string) => ({ type: 'string', ...(description ? { description } : {}) });
const integer = { type: 'integer' };
const list = (items: object) => ({ type: 'array', items });
const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
const eventStream = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: string('frames `id: <sequence>`, `event: <type>`, `data: <JSON>`') } },
});

const usage = object({ inputTokens: integer, outputTokens: integer, costUsd: { type: 'number' } });
const runRow = object({
  runId: string(),
  status: string('completed, running, awaiting_approval, ...'),
  model: string(),
  sessionId: string(),
  createdAt: string(),
  updatedAt: string(),
  steps: integer,
  toolCalls: integer,
  usage,
  durationMs: integer,
});
const pendingApprovals = list(object({ callId: string(), name: string(), arguments: {} }));
const chatAnswer = {
  description: 'The run ended (JSON), or its events (SSE with Accept: text/event-stream, ending with run_end)',
  content: {
    'application/json': {
      schema: object({
        answer: string(),
        status: string('completed, awaiting_approval (decide pendingApprovals), max_steps, timeout, ...'),
        runId: string(),
        sessionId: string(),
        steps: integer,
        toolCalls: integer,
        usage,
        error: string(),
        pendingApprovals,
      }),
    },
    'text/event-stream': { schema: string('frames `id: <sequence>`, `event: <type>`, `data: <JSON>`') },
  },
};
const batchJob = object({
  id: string(),
  status: string('running, finished or cancelled'),
  createdAt: string(),
  finishedAt: string(),
  progress: object({ total: integer, done: integer, succeeded: integer, failed: integer, running: integer }),
  results: list(object({ index: integer, id: string(), status: string(), answer: string(), runId: string() })),
});
const session = object({ id: string(), messages: list(object()), createdAt: string(), updatedAt: string() });
const model = object({ id: string('bridle:<skill>'), object: string('model'), created: integer, owned_by: string() });
const completionOrStream = (schema: object, description: string) => ({
  description,
  content: {
    'application/json': { schema },
    'text/event-stream': { schema: string('OpenAI stream chunks, then data: [DONE] (chat completions)') },
  },
});

/** The success responses of each route, by `METHOD url` as registered (prefix included). */
export const RESPONSE_SCHEMAS: Readonly<Record<string, Record<number, object>>> = {
  'GET /health': { 200: json(object({ status: string('ok') }), 'The process answers') },
  'GET /ready': {
    200: json(object({ status: string('ready'), model: string(), activeRuns: integer }), 'Ready for traffic'),
  },
  'POST /api/chat': { 200: chatAnswer },
  'GET /api/sessions': {
    200: json(object({ sessions: list(object({ id: string(), messageCount: integer })) }), 'Sessions'),
  },
  'GET /api/sessions/:id': { 200: json(session, 'The session and its transcript') },
  'DELETE /api/sessions/:id': { 204: { description: 'Forgotten', type: 'null' } },
  'GET /api/runs': { 200: json(object({ runs: list(runRow) }), 'Runs, newest first') },
  'GET /api/runs/:id': {
    200: json(object({ ...runRow.properties, pendingApprovals, state: {}, events: list(object()) }), 'The run'),
  },
  'GET /api/runs/:id/events': { 200: eventStream("The run's events until its segment's run_end") },
  'POST /api/runs/:id/approvals': { 200: chatAnswer },
  'POST /api/batch': { 202: json(batchJob, 'The job started (Location: /api/batch/<id>)') },
  'GET /api/batch/:id': { 200: json(batchJob, 'Progress and the finished results') },
  'DELETE /api/batch/:id': { 200: json(batchJob, 'The cancelled job') },
  'GET /v1/models': { 200: json(object({ object: string('list'), data: list(model) }), 'The agents') },
  'GET /v1/models/:model': { 200: json(model, 'The agent') },
  'POST /v1/chat/completions': {
    200: completionOrStream(
      object({
        id: string(),
        object: string('chat.completion'),
        created: integer,
        model: string(),
        choices: list(object()),
        usage: object(),
      }),
      'A chat completion (or its chunks with stream: true)',
    ),
  },
  'POST /v1/responses': {
    200: completionOrStream(
      object({ id: string(), object: string('response'), status: string(), output: list(object()), usage: object() }),
      'A response (or its events with stream: true)',
    ),
  },
};

/**
 * Adds each route's documented success responses (above) to its schema as it is registered, so the
 * OpenAPI document (@fastify/swagger) shows them. Replies are still written with `JSON.stringify`, as
 * without a response schema: the documents are permissive (`additionalProperties`), and a schema-built
 * serializer would drop or coerce fields the documentation leaves open. Register before the routes.
 */
export function documentResponses(app: FastifyInstance): void {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method === 'HEAD') return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const response = RESPONSE_SCHEMAS[`${methods[0]} ${route.url}`];
    if (response && !route.schema?.hide) route.schema = { ...route.schema, response };
  });
}
