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
  title: string("the first line of the run's prompt, at most 200 characters"),
  owner: string('the process that owns the running run (its lease holder)'),
  leaseUntil: string('when the owner’s lease ends unless renewed (ISO 8601); past it, the run is an orphan to recover'),
});
const number = { type: 'number' };
const overview = object({
  since: string(),
  until: string(),
  runsPerHour: list(object({ hour: string('the hour, ISO 8601 UTC'), status: string(), runs: integer })),
  duration: object(
    { runs: integer, p50Ms: number, p95Ms: number },
    'durations of the runs that ended a segment (nearest-rank percentiles)',
  ),
  usagePerDay: list(
    object({
      day: string('YYYY-MM-DD, UTC'),
      model: string(),
      runs: integer,
      inputTokens: integer,
      outputTokens: integer,
      costUsd: number,
    }),
  ),
  slowestTools: list(object({ name: string(), calls: integer, errors: integer, meanMs: number, maxMs: number })),
});
const pendingApprovals = list(
  object({
    callId: string(),
    name: string(),
    arguments: {},
    digest: string('binds a decision to this call: send { approved, digest } as its decision'),
    runId: string('set when a sub-agent (agentTool) made the call: its run; decide the call on this run all the same'),
  }),
);
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
  'POST /api/ui/chat': {
    200: {
      description: 'The AI SDK UI message stream (v1): one JSON chunk per data line, then data: [DONE]',
      content: { 'text/event-stream': { schema: string('UI message chunks (start, text-delta, tool-*, finish)') } },
    },
  },
  'GET /api/sessions': {
    200: json(object({ sessions: list(object({ id: string(), messageCount: integer })) }), 'Sessions'),
  },
  'GET /api/sessions/:id': { 200: json(session, 'The session and its transcript') },
  'DELETE /api/sessions/:id': { 204: { description: 'Forgotten', type: 'null' } },
  'GET /api/runs': {
    200: json(
      object({
        runs: list(runRow),
        awaitingApproval: {
          type: 'integer',
          description: 'runs waiting for approval, whatever the filters (counted up to 200)',
        },
      }),
      'Runs, newest first',
    ),
  },
  'GET /api/overview': { 200: json(overview, 'Aggregates of the runs created in the window') },
  'GET /api/runs/:id': {
    200: json(
      object({
        ...runRow.properties,
        pendingApprovals,
        parent: object(
          { runId: string(), callId: string() },
          "a sub-agent's run: the run and call that started it; decide its calls on that run",
        ),
        subAgents: list(object({ callId: string(), runId: string() })),
        state: {},
        events: list(object()),
      }),
      'The run',
    ),
  },
  'GET /api/runs/:id/events': { 200: eventStream("The run's events until its segment's run_end") },
  'POST /api/runs/:id/approvals': { 200: chatAnswer },
  'POST /api/runs/:id/input': {
    202: json(
      object({
        runId: string(),
        delivery: string(
          'signal: sent to the running run (acknowledged by an input event on its event stream); journal: kept for a paused run',
        ),
      }),
      'Accepted',
    ),
  },
  'POST /api/runs/:id/cancel': {
    202: json(
      object({
        runId: string(),
        delivery: string('signal: sent to the running run (it ends aborted); journal: the paused run was ended'),
      }),
      'Accepted',
    ),
  },
  'POST /api/batch': { 202: json(batchJob, 'The job started (Location: /api/batch/<id>)') },
  'GET /api/batch/:id': { 200: json(batchJob, 'Progress and the finished results') },
  'DELETE /api/batch/:id': { 200: json(batchJob, 'The cancelled job') },
  'GET /api/usage': {
    200: json(
      object({
        tenant: string(),
        key: string(),
        day: object({ tokens: integer, costUsd: { type: 'number' }, resetsAt: string() }),
        limits: object({
          requestsPerMinute: integer,
          tokensPerDay: integer,
          costUsdPerDay: { type: 'number' },
          costUsdPerRun: { type: 'number' },
        }),
      }),
      "The caller's tenant's use today and its quotas",
    ),
  },
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
