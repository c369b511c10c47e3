import { ConfigError, type Model } from '@bridle/protocol';
import { type FakeProviderServer, fakeAnthropicServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveModel } from '../src/resolve-model';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 3, outputTokens: 2 };

function ask(model: Model) {
  return model.generate({
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    signal: new AbortController().signal,
  });
}

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveModel', () => {
  it('builds an OpenAI model from the key and base URL in env, on the Responses API with provider openai', async () => {
    server = await fakeOpenAIServer([
      { content: 'from openai', usage },
      { content: 'streamed', usage },
    ]);
    const model = resolveModel('openai:fake-model', {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: server.baseURL },
    });
    expect(model.id).toBe('openai:fake-model');
    const response = await ask(model);
    expect(response.content).toBe('from openai');
    expect(Object.keys(response.providerData ?? {})).toEqual(['openai']);
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-env');
    expect(server.requests[0]?.body).toMatchObject({ model: 'fake-model', store: false });
    const parts = [];
    for await (const part of model.stream!({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      signal: new AbortController().signal,
    }))
      parts.push(part);
    expect(parts.at(-1)).toMatchObject({ type: 'response', response: { content: 'streamed' } });
    expect(server.requests[1]?.path).toBe('/v1/responses');
  });

  it('builds an Anthropic model from the key and base URL in env', async () => {
    server = await fakeAnthropicServer([{ content: 'from anthropic', usage }]);
    const model = resolveModel('anthropic:claude-test', {
      env: { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: server.url },
    });
    expect(model.id).toBe('anthropic:claude-test');
    expect((await ask(model)).content).toBe('from anthropic');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-ant');
  });

  it('builds an OpenAI-compatible model that never sends OPENAI_API_KEY', async () => {
    server = await fakeOpenAIServer([
      { content: 'local', usage },
      { content: 'local again', usage },
    ]);
    const id = `openai-compatible:${server.baseURL}#llama3.2`;
    const model = resolveModel(id, { env: { OPENAI_API_KEY: 'sk-secret' } });
    expect(model.id).toBe(id);
    expect((await ask(model)).content).toBe('local');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).not.toContain('sk-secret');
    const keyed = resolveModel(id, { env: { OPENAI_COMPATIBLE_API_KEY: 'sk-local' } });
    await ask(keyed);
    expect(server.requests[1]?.headers.authorization).toBe('Bearer sk-local');
  });

  it('openai-compatible:<model> takes the server from OPENAI_COMPATIBLE_BASE_URL, and names it when missing', async () => {
    server = await fakeOpenAIServer([{ content: 'short form', usage }]);
    const model = resolveModel('openai-compatible:llama3.2', {
      env: { OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-secret' },
    });
    expect(model.id).toBe(`openai-compatible:${server.baseURL}#llama3.2`);
    expect((await ask(model)).content).toBe('short form');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).not.toContain('sk-secret');
    expect(configError(() => resolveModel('openai-compatible:llama3.2', { env: {} }))).toBe(
      "Model openai-compatible:llama3.2 needs OPENAI_COMPATIBLE_BASE_URL, the server's base URL (e.g. http://localhost:11434/v1): set it in your shell or an --env-file, or write the id as openai-compatible:<baseURL>#llama3.2.",
    );
    expect(
      configError(() =>
        resolveModel('openai-compatible:llama3.2', { env: { OPENAI_COMPATIBLE_BASE_URL: 'file:///x' } }),
      ),
    ).toContain('is not an http or https URL');
  });

  it('uses the default model id when none is given', () => {
    expect(resolveModel(undefined, { env: { ANTHROPIC_API_KEY: 'k' } }).id).toBe('anthropic:claude-sonnet-4-6');
    expect(configError(() => resolveModel(undefined, { env: {} }))).toContain('No model configured');
  });

  it('names the variable to set when the key is missing', () => {
    expect(configError(() => resolveModel('openai:gpt-4o-mini', { env: {} }))).toBe(
      'Model openai:gpt-4o-mini needs OPENAI_API_KEY: set it in the environment or in .env in the working directory, or choose another model with --model / BRIDLE_MODEL.',
    );
    expect(
      configError(() =>
        resolveModel('anthropic:claude-sonnet-4-6', { env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: ' ' } }),
      ),
    ).toContain('needs ANTHROPIC_API_KEY');
  });

  it('rejects a bad id before anything else', () => {
    expect(configError(() => resolveModel('mistral:large', { env: {} }))).toContain('Unknown model provider "mistral"');
  });
});
