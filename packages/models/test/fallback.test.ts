import { ConfigError, type Model, ProviderError, type ProviderErrorCode } from '@bridle/protocol';
import {
  collectStream,
  type FakeProviderServer,
  fakeAnthropicServer,
  fakeOpenAIServer,
  modelRequest,
  rejection,
  scriptedModel,
} from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fallback } from '../src/fallback';
import { resolveModel } from '../src/resolve-model';

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const hi = () => modelRequest([{ role: 'user', content: 'hi' }]);
const failure = (code: ProviderErrorCode) => new ProviderError({ code, message: `${code} failure`, provider: 'test' });

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('fallback: options', () => {
  it('refuses an empty list, a non-model and the same model twice', () => {
    const a = scriptedModel([], { id: 'test:a' });
    expect(configError(() => fallback([]))).toBe(
      'fallback: expected a non-empty list of models, like fallback([primary, secondary]); got an array.',
    );
    expect(configError(() => fallback([a, a]))).toBe(
      'fallback: test:a appears twice in the list; a model that failed would only be asked again. List each model once.',
    );
    expect(configError(() => fallback([a, scriptedModel([], { id: 'test:a' })]))).toContain('test:a appears twice');
    expect(configError(() => fallback([a, {} as Model]))).toContain('models[1] is not a Model');
    expect(configError(() => fallback('x' as never))).toContain('expected a non-empty list of models');
  });
});

describe('fallback: which failures move on', () => {
  it.each(['server', 'network', 'timeout', 'rate_limited'] as const)(
    'moves on after %s and says which model answered',
    async (code) => {
      const primary = scriptedModel([failure(code)], { id: 'test:primary' });
      const secondary = scriptedModel([{ content: 'from secondary' }], { id: 'test:secondary' });
      const model = fallback([primary, secondary]);
      expect(model.id).toBe('fallback(test:primary, test:secondary)');
      expect(await model.generate(hi())).toEqual({ content: 'from secondary', model: 'test:secondary' });
    },
  );

  it.each(['bad_request', 'auth', 'context_length'] as const)('never moves on after %s', async (code) => {
    const secondary = scriptedModel([{ content: 'never' }], { id: 'test:secondary' });
    const model = fallback([scriptedModel([failure(code)], { id: 'test:primary' }), secondary]);
    expect(await rejection(model.generate(hi()))).toMatchObject({ code });
    expect(secondary.requests).toHaveLength(0);
  });

  it('throws the last error when every model fails, and never moves on after an abort', async () => {
    const model = fallback([
      scriptedModel([failure('server')], { id: 'test:a' }),
      scriptedModel([failure('rate_limited')], { id: 'test:b' }),
    ]);
    expect(await rejection(model.generate(hi()))).toMatchObject({ code: 'rate_limited', retryable: true });
    const controller = new AbortController();
    const second = scriptedModel([{ content: 'never' }], { id: 'test:second' });
    const aborting: Model = {
      id: 'test:aborting',
      generate: async () => {
        controller.abort();
        throw failure('network');
      },
    };
    await rejection(
      fallback([aborting, second]).generate(
        modelRequest([{ role: 'user', content: 'hi' }], { signal: controller.signal }),
      ),
    );
    expect(second.requests).toHaveLength(0);
  });
});

describe('fallback over real adapters and fake servers', () => {
  it('moves from an overloaded Anthropic to OpenAI (streamed or not), and prices each answer by the model that gave it', async () => {
    const claude = await fakeAnthropicServer([
      { type: 'http_error', status: 529, message: 'Overloaded' },
      { type: 'http_error', status: 529, message: 'Overloaded' },
    ]);
    const gpt = await fakeOpenAIServer([
      { content: 'Hello from GPT.', usage: { inputTokens: 1000, outputTokens: 100 } },
      { content: 'Hello from GPT.', usage: { inputTokens: 1000, outputTokens: 100 } },
    ]);
    servers.push(claude, gpt);
    const env = {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: claude.url,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: gpt.baseURL,
    };
    const gptModel = resolveModel('openai:gpt-4o-mini', { env });
    const model = fallback([resolveModel('anthropic:claude-sonnet-4-6', { env }), gptModel]);
    // A custom OPENAI_BASE_URL (a proxy) keeps the openai: id and the Responses API; priced as gpt-4o-mini.
    expect(gptModel.id).toBe('openai:gpt-4o-mini');

    const response = await model.generate(hi());
    expect(response).toMatchObject({
      content: 'Hello from GPT.',
      model: gptModel.id,
      usage: { inputTokens: 1000, outputTokens: 100, costUsd: (1000 * 0.15 + 100 * 0.6) / 1_000_000 },
    });
    const parts = await collectStream(model.stream!(hi()));
    expect(parts.at(-1)).toMatchObject({ type: 'response', response: { model: gptModel.id } });
    expect(
      parts
        .filter((part) => part.type === 'text_delta')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('Hello from GPT.');
    expect(claude.requests).toHaveLength(2);
  });

  it('does not move on in a stream once text was shown', async () => {
    const claude = await fakeAnthropicServer([
      { type: 'stream_error', errorType: 'overloaded_error', before: { content: 'Partial answer' } },
    ]);
    const gpt = await fakeOpenAIServer([{ content: 'never' }]);
    servers.push(claude, gpt);
    const env = {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: claude.url,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: gpt.baseURL,
    };
    const model = fallback([
      resolveModel('anthropic:claude-sonnet-4-6', { env }),
      resolveModel('openai:gpt-4o-mini', { env }),
    ]);
    expect(await rejection(collectStream(model.stream!(hi())))).toMatchObject({ code: 'server' });
    expect(gpt.requests).toHaveLength(0);
  });
});
