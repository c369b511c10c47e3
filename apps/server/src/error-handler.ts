import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drainThenClose } from './drain-then-close';
import { httpFailure } from './http-status';

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string; requestId: string };
}

/** Sends `error` as `{ error: { code, message, requestId } }` with its mapped status (never a stack). */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const failure = httpFailure(error);
  if (failure.status >= 500 && failure.code === 'internal') request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: failure.code, status: failure.status }, failure.message);
  if (failure.retryAfterSeconds !== undefined) reply.header('retry-after', String(failure.retryAfterSeconds));
  if (failure.status === 401) reply.header('www-authenticate', 'Bearer');
  const body: ErrorBody = { error: { code: failure.code, message: failure.message, requestId: request.id } };
  // Answered while the body is still arriving (over the limit, unauthorized, ...): the connection cannot be
  // reused, and a client still sending must be able to read this answer.
  if (!request.raw.complete && !reply.sent) {
    reply.header('connection', 'close');
    drainThenClose(request.raw);
  }
  return reply.code(failure.status).send(body);
}

/** Installs the error and not-found handlers: every failure leaves through {@link sendError}. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler(sendNotFound);
}

/** Answers 404 for a path no route serves (registered again under /api, so its auth hook runs first). */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, {
    statusCode: 404,
    code: 'not_found',
    message: `No route ${request.method} ${request.url.split('?')[0]}: see the server README for the API.`,
  });
}
