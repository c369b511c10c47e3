import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { a2aAgentCard } from '../a2a/a2a-card';
import { BridleA2AHandler, CALLER_KEY } from '../a2a/bridle-a2a-handler';
import type { ServerContext } from '../server-context';
import { openSseStream } from '../sse-stream';
import { callerOf } from '../tenant-auth';

/** JSON-RPC 2.0's code for a body that is not JSON. */
const PARSE_ERROR = -32700;

type JsonRpcAnswer = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** The skill a path names (404 for one this server does not offer, like an unknown path). */
function skillOf(context: ServerContext, name: string | undefined): string | undefined {
  if (name === undefined) return context.profiles.defaultSkill;
  context.profiles.get(name);
  return name;
}

async function answer(
  context: ServerContext,
  request: FastifyRequest<{ Body: string }>,
  reply: FastifyReply,
  skill: string | undefined,
): Promise<unknown> {
  const card = a2aAgentCard(context, baseUrl(request), skill === context.profiles.defaultSkill ? undefined : skill);
  const handler = new BridleA2AHandler({ context, reply, card, skill });
  const header = request.headers[A2A_VERSION_HEADER.toLowerCase()];
  const version = typeof header === 'string' && header !== '' ? header : '0.3';
  const legacy = version === '0.3';
  const callContext = new ServerCallContext({ requestedVersion: version });
  callContext.state.set(CALLER_KEY, callerOf(request));
  const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  const mapError = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(request.body) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'not JSON';
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: PARSE_ERROR, message: `Parse error: the body is not JSON (${reason}).` },
    };
  }
  let outcome: JsonRpcAnswer | AsyncGenerator<JsonRpcAnswer, void, undefined>;
  try {
    validateVersion(version, card, 'JSONRPC');
    outcome = (await transport.handle(body, callContext)) as typeof outcome;
  } catch (error) {
    return { jsonrpc: '2.0', id: null, error: mapError(error) };
  }
  if (!(Symbol.asyncIterator in outcome)) return outcome;
  // The first answer decides: a refusal before the run (busy, not pending, a quota) is a plain JSON answer.
  const iterator = outcome[Symbol.asyncIterator]();
  let first: IteratorResult<JsonRpcAnswer, void>;
  try {
    first = await iterator.next();
  } catch (error) {
    return { jsonrpc: '2.0', id: requestId(request.body), error: mapError(error) };
  }
  const sse = openSseStream(reply, {
    headers: { 'x-request-id': request.id },
    maxBufferBytes: context.config.maxSseBufferBytes,
    onOverflow: () => reply.raw.destroy(),
  });
  try {
    if (!first.done) sse.send(first.value);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) sse.send(next.value);
  } catch (error) {
    request.log.error({ err: error }, 'the A2A stream failed after it started');
    sse.send({ jsonrpc: '2.0', id: requestId(request.body), error: mapError(error) });
  }
  sse.end();
  return reply;
}

function requestId(body: string): string | number | null {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/**
 * The A2A face (JSON-RPC over HTTP, A2A 1.0 with the `A2A-Version: 1.0` header, else 0.3's `message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`): `GET /.well-known/agent-card.json` (the default agent, its
 * card listing every skill), `POST /a2a`, and one agent per skill at `POST /a2a/skills/:skill` (card at
 * `GET /a2a/skills/:skill/agent-card.json`). The body is read as text and parsed by the SDK, so malformed JSON
 * is a JSON-RPC parse error (-32700) and a bad request an invalid-request error (-32600), with nothing run.
 */
export function registerA2ARoutes(app: FastifyInstance, context: ServerContext): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/a2a+json'],
    { parseAs: 'string', bodyLimit: context.config.bodyLimit },
    (_request, body, done) => done(null, body),
  );
  const cardOf = (request: FastifyRequest, skill: string | undefined) => a2aAgentCard(context, baseUrl(request), skill);
  app.get('/.well-known/agent-card.json', { schema: { hide: true } }, async (request) => cardOf(request, undefined));
  app.get<{ Params: { skill: string } }>(
    '/a2a/skills/:skill/agent-card.json',
    { schema: { hide: true } },
    async (request) => cardOf(request, skillOf(context, request.params.skill)),
  );
  app.post<{ Body: string }>('/a2a', { schema: { hide: true } }, (request, reply) =>
    answer(context, request, reply, skillOf(context, undefined)),
  );
  app.post<{ Body: string; Params: { skill: string } }>(
    '/a2a/skills/:skill',
    { schema: { hide: true } },
    (request, reply) => answer(context, request, reply, skillOf(context, request.params.skill)),
  );
}
