import { describe, expect, it } from 'vitest';
import {
  BridleError,
  ConfigError,
  ContextLimitError,
  ModelResponseError,
  ProviderError,
  TranscriptError,
} from '../src/index';

describe('BridleError family', () => {
  it('gives each class its stable code and name', () => {
    expect(new ConfigError('x').code).toBe('invalid_config');
    expect(new TranscriptError('x').code).toBe('invalid_transcript');
    expect(new ModelResponseError('x').code).toBe('invalid_model_response');
    expect(new ContextLimitError('x').code).toBe('context_limit');
    expect(new ProviderError({ code: 'auth', message: 'x', provider: 'p' }).code).toBe('auth');
    expect(new ConfigError('x').name).toBe('ConfigError');
    expect(new ProviderError({ code: 'auth', message: 'x', provider: 'p' }).name).toBe('ProviderError');
  });

  it('keeps message and cause', () => {
    const cause = new Error('root');
    const error = new ConfigError('maxSteps must be a positive integer', { cause });
    expect(error.message).toBe('maxSteps must be a positive integer');
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
  });

  it('isInstance recognises errors from a duplicate install (a structural copy with the same markers)', () => {
    const foreign = Object.assign(Object.create(Error.prototype), {
      [Symbol.for('bridle.error')]: true,
      [Symbol.for('bridle.error.provider')]: true,
      code: 'rate_limited',
    });
    expect(BridleError.isInstance(foreign)).toBe(true);
    expect(ProviderError.isInstance(foreign)).toBe(true);
    expect(ConfigError.isInstance(foreign)).toBe(false);
  });

  it('isInstance distinguishes the subclasses and rejects non-errors', () => {
    const config = new ConfigError('x');
    expect(BridleError.isInstance(config)).toBe(true);
    expect(ConfigError.isInstance(config)).toBe(true);
    expect(TranscriptError.isInstance(config)).toBe(false);
    expect(ModelResponseError.isInstance(new ModelResponseError('x'))).toBe(true);
    expect(ContextLimitError.isInstance(new ContextLimitError('x'))).toBe(true);
    expect(TranscriptError.isInstance(new TranscriptError('x'))).toBe(true);
    for (const value of [null, undefined, 0, 'error', new Error('plain'), {}, { code: 'invalid_config' }]) {
      expect(BridleError.isInstance(value)).toBe(false);
    }
  });

  it('defaults ProviderError.retryable by code and keeps status and retryAfterMs', () => {
    const retryable = ['rate_limited', 'server', 'network', 'timeout'] as const;
    const final = ['auth', 'bad_request', 'context_length'] as const;
    for (const code of retryable) expect(new ProviderError({ code, message: 'x', provider: 'p' }).retryable).toBe(true);
    for (const code of final) expect(new ProviderError({ code, message: 'x', provider: 'p' }).retryable).toBe(false);
    const error = new ProviderError({
      code: 'rate_limited',
      message: 'slow down',
      provider: 'openai',
      status: 429,
      retryAfterMs: 1500,
      retryable: false,
    });
    expect(error).toMatchObject({ status: 429, retryAfterMs: 1500, retryable: false, provider: 'openai' });
    expect('status' in new ProviderError({ code: 'network', message: 'x', provider: 'p' })).toBe(false);
  });
});
