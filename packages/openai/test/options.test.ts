import { ConfigError } from '@bridle/protocol';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openai, openaiCompatible } from '../src/index';
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

describe('openai options', () => {
  it('refuses a missing API key at creation, naming OPENAI_API_KEY', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const error = configError(() => openai({ model: 'gpt-4o-mini' }));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain('OPENAI_API_KEY');
  });

  it('takes the key and base URL from the environment and stays on the Responses API as provider openai', async () => {
    const server = await serve([{ content: 'from env' }, { content: 'from options' }]);
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    vi.stubEnv('OPENAI_BASE_URL', server.baseURL);
    const model = openai({ model: 'm' });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));
    expect(response.content).toBe('from env');
    expect(response.providerData).toEqual({ openai: { model: 'm', api: 'responses', status: 'completed' } });
    expect(model.id).toBe('openai:m');
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-env');

    vi.stubEnv('OPENAI_BASE_URL', '');
    const given = openai({ model: 'm', baseURL: `${server.baseURL}/` });
    expect(given.id).toBe('openai:m');
    await given.generate(modelRequest([{ role: 'user', content: 'Hi' }]));
    expect(server.requests[1]?.path).toBe('/v1/responses');
  });

  it('names models openai:<model> for OpenAI itself or the Responses API', () => {
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(openai({ model: 'gpt-4o-mini', apiKey: 'k' }).id).toBe('openai:gpt-4o-mini');
    expect(openai({ model: 'gpt-4o-mini', apiKey: 'k', api: 'chat' }).id).toBe('openai:gpt-4o-mini');
    expect(openai({ model: 'gpt-4o-mini', apiKey: 'k', baseURL: 'https://api.openai.com/v1/' }).id).toBe(
      'openai:gpt-4o-mini',
    );
    expect(openai({ model: 'x', apiKey: 'k', baseURL: 'http://proxy.local/v1', api: 'responses' }).id).toBe('openai:x');
  });

  it('uses a given client (no key needed) and still turns its retries off per request', async () => {
    const server = await serve([{ type: 'http_error', status: 500 }]);
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: server.baseURL, maxRetries: 5 });
    const model = openai({ model: 'm', client, api: 'responses' });
    await expect(model.generate(modelRequest([{ role: 'user', content: 'Hi' }]))).rejects.toMatchObject({
      code: 'server',
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-client');
  });

  it.each([
    [{ model: '' }, 'model must be a non-empty string'],
    [{ model: 'm', api: 'completions' }, "api must be 'responses' or 'chat'"],
    [{ model: 'm', maxOutputTokens: 0 }, 'maxOutputTokens must be a positive integer'],
    [{ model: 'm', temperature: 3 }, 'temperature must be a number from 0 to 2'],
    [{ model: 'm', baseURL: 'not a url' }, 'is not a URL'],
    [{ model: 'm', baseURL: 'file:///etc/passwd' }, 'must use http: or https:'],
    [{ model: 'm', providerOptions: 'x' }, 'providerOptions must be an object'],
  ])('rejects bad options %j', (options, message) => {
    expect(configError(() => openai({ apiKey: 'k', ...(options as { model: string }) })).message).toContain(message);
  });

  it('requires a base URL for openaiCompatible', () => {
    expect(configError(() => openaiCompatible({ model: 'm' } as never)).message).toContain('baseURL must be');
  });
});
