import { ConfigError } from '@bridle/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anthropic } from '../src/index';
import { modelRequest, serve } from './helpers';

afterEach(() => {
  vi.unstubAllEnvs();
});

function configError(create: () => unknown): ConfigError {
  try {
    create();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('anthropic options', () => {
  it('refuses a missing API key at creation, naming ANTHROPIC_API_KEY', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(configError(() => anthropic({ model: 'claude-sonnet-4-6' })).message).toContain('ANTHROPIC_API_KEY');
  });

  it('takes the key and base URL from the environment', async () => {
    const server = await serve([{ content: 'from env' }]);
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-env');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.baseURL);
    const model = anthropic({ model: 'claude-sonnet-4-6' });

    expect((await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]))).content).toBe('from env');
    expect(model.id).toBe('anthropic:claude-sonnet-4-6');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-ant-env');
  });

  it.each([
    [{ model: '' }, 'model must be a non-empty string'],
    [{ model: 'm', maxTokens: 0 }, 'maxTokens must be a positive integer'],
    [{ model: 'm', maxTokens: 1.5 }, 'maxTokens must be a positive integer'],
    [{ model: 'm', baseURL: 'ftp://x' }, 'must be an http(s) URL'],
  ])('rejects bad options %j', (options, message) => {
    expect(configError(() => anthropic({ apiKey: 'k', ...(options as { model: string }) })).message).toContain(message);
  });
});
