import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type HttpFailure, httpFailure } from '../http-status';

/** The error body of the OpenAI API, which the official SDKs turn into their error classes by status. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's `type` for each status class (the SDKs pick the error class by status, not by type). */
function errorType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** OpenAI's own codes where one exists for the same failure. */
const OPENAI_CODE: Readonly<Record<string, string>> = {
  unauthorized: 'invalid_api_key',
  rate_limited: 'rate_limit_exceeded',
  context_limit: 'context_length_exceeded',
};

/** The OpenAI-shaped body of a failure. */
export function openAIErrorBody(failure: HttpFailure, param: string | null = null): OpenAIErrorBody {
  return {
    error: {
      message: failure.message,
      type: errorType(failure.status),
      param,
      code: OPENAI_CODE[failure.code] ?? failure.code,
    },
  };
}

/** Sends `error` with its mapped status in OpenAI's shape (never a stack; 500s are logged). */
export function sendOpenAIError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const failure = httpFailure(error);
  if (failure.status >= 500 && failure.code === 'internal') request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: failure.code, status: failure.status }, failure.message);
  if (failure.retryAfterSeconds !== undefined) reply.header('retry-after', String(failure.retryAfterSeconds));
  if (failure.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(failure.status).send(openAIErrorBody(failure));
}

/** Every failure inside `scope` (the `/v1` routes) leaves in OpenAI's error shape. */
export function installOpenAIErrorHandling(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError, request, reply) => sendOpenAIError(request, reply, error));
  scope.setNotFoundHandler((request, reply) =>
    sendOpenAIError(request, reply, {
      statusCode: 404,
      code: 'not_found',
      message: `No route ${request.method} ${request.url.split('?')[0]}: this server offers GET /v1/models, POST /v1/chat/completions and POST /v1/responses.`,
    }),
  );
}
