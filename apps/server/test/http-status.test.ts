import { ConfigError, ContextLimitError, ModelResponseError, ProviderError, TranscriptError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { httpFailure } from '../src/http-status';
import { ServerError } from '../src/server-error';

describe('httpFailure: the one map from errors to HTTP statuses', () => {
  it.each([
    [new ServerError('bad_request', 'm'), 400, 'bad_request'],
    [new ServerError('unauthorized', 'm'), 401, 'unauthorized'],
    [new ServerError('not_found', 'm'), 404, 'not_found'],
    [new ServerError('session_busy', 'm'), 409, 'session_busy'],
    [new ServerError('busy', 'm'), 503, 'busy'],
    [new ServerError('too_many_jobs', 'm'), 503, 'too_many_jobs'],
    [new ServerError('shutting_down', 'm'), 503, 'shutting_down'],
    [new ServerError('not_ready', 'm'), 503, 'not_ready'],
    [new ServerError('not_implemented', 'm'), 501, 'not_implemented'],
    [new ConfigError('m'), 400, 'invalid_config'],
    [new TranscriptError('m'), 500, 'invalid_transcript'],
    [new ContextLimitError('m'), 413, 'context_limit'],
    [new ModelResponseError('m'), 502, 'invalid_model_response'],
    [new ProviderError({ code: 'rate_limited', message: 'm', provider: 'p' }), 429, 'provider_rate_limited'],
    [new ProviderError({ code: 'timeout', message: 'm', provider: 'p' }), 504, 'provider_timeout'],
    [new ProviderError({ code: 'auth', message: 'm', provider: 'p' }), 502, 'provider_auth'],
    [new ProviderError({ code: 'bad_request', message: 'm', provider: 'p' }), 502, 'provider_bad_request'],
    [new ProviderError({ code: 'server', message: 'm', provider: 'p' }), 502, 'provider_server'],
  ])('%o -> %i %s', (error, status, code) => {
    expect(httpFailure(error)).toMatchObject({ status, code, message: 'm' });
  });

  it('carries Retry-After from server errors and provider retryAfterMs (rounded up to seconds)', () => {
    expect(httpFailure(new ServerError('busy', 'm', { retryAfterSeconds: 1 })).retryAfterSeconds).toBe(1);
    const limited = new ProviderError({ code: 'rate_limited', message: 'm', provider: 'p', retryAfterMs: 1500 });
    expect(httpFailure(limited).retryAfterSeconds).toBe(2);
  });

  it('knows a ServerError from another copy of the package by its marker, not instanceof', () => {
    const copy = Object.assign(new Error('m'), {
      [Symbol.for('bridle.error')]: true,
      [Symbol.for('bridle.error.server')]: true,
      code: 'busy',
      retryAfterSeconds: 7,
    });
    expect(copy instanceof ServerError).toBe(false);
    expect(ServerError.isInstance(copy)).toBe(true);
    expect(httpFailure(copy)).toMatchObject({ status: 503, code: 'busy', retryAfterSeconds: 7 });
  });

  it('renames Fastify request errors and keeps other 4xx statuses', () => {
    expect(httpFailure({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'too big' })).toEqual({
      status: 413,
      code: 'payload_too_large',
      message: 'too big',
    });
    expect(httpFailure({ statusCode: 405, code: 'SOMETHING', message: 'no' })).toEqual({
      status: 405,
      code: 'bad_request',
      message: 'no',
    });
  });

  it('hides everything about unexpected errors', () => {
    const failure = httpFailure(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(failure).toEqual({
      status: 500,
      code: 'internal',
      message: 'Internal server error: the failure was logged with this request id.',
    });
    expect(httpFailure({ statusCode: 503, message: 'upstream detail' }).code).toBe('internal');
    expect(httpFailure(undefined).status).toBe(500);
  });
});
