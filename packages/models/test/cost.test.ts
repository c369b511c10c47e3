import { ConfigError } from '@bridle/protocol';
import {
  collectStream,
  type FakeProviderServer,
  fakeAnthropicServer,
  fakeOpenAIServer,
  modelRequest,
} from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { modelPrices } from '../src/model-prices';
import { resolveModel } from '../src/resolve-model';
import { usageCost } from '../src/usage-cost';
import { withCost } from '../src/with-cost';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const hi = () => modelRequest([{ role: 'user', content: 'hi' }]);

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('modelPrices', () => {
  it('has a source and a date on every entry, and only finite non-negative prices', () => {
    expect(Object.keys(modelPrices).length).toBeGreaterThan(10);
    for (const [id, price] of Object.entries(modelPrices)) {
      expect(id).toMatch(/^(openai|anthropic):/);
      expect(price.source).toMatch(/^https:\/\//);
      expect(price.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const value of [
        price.inputPerMTok,
        price.outputPerMTok,
        price.cacheReadPerMTok ?? 0,
        price.cacheWritePerMTok ?? 0,
      ]) {
        expect(Number.isFinite(value) && value >= 0).toBe(true);
      }
    }
    expect(modelPrices['openai:gpt-4o-mini']).toMatchObject({
      inputPerMTok: 0.15,
      outputPerMTok: 0.6,
      cacheReadPerMTok: 0.075,
    });
    expect(modelPrices['anthropic:claude-sonnet-4-6']).toMatchObject({
      inputPerMTok: 3,
      outputPerMTok: 15,
      cacheWritePerMTok: 3.75,
      cacheReadPerMTok: 0.3,
    });
  });
});

describe('usageCost', () => {
  it('prices plain input, cache reads, cache writes and output apart (inputTokens includes the cached parts)', () => {
    const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
    // 1000 plain + 8000 read + 1000 written = 10000 input tokens; 500 output.
    const usage = { inputTokens: 10_000, outputTokens: 500, cacheReadTokens: 8000, cacheWriteTokens: 1000 };
    expect(usageCost(usage, price)).toBe((1000 * 3 + 8000 * 0.3 + 1000 * 3.75 + 500 * 15) / 1_000_000);
    expect(
      usageCost({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 }),
    ).toBe(0.75);
    // Without cache prices, cached tokens cost plain input.
    expect(
      usageCost({ inputTokens: 100, outputTokens: 0, cacheReadTokens: 100 }, { inputPerMTok: 1, outputPerMTok: 2 }),
    ).toBe(0.0001);
  });
});

describe('resolveModel with prices', () => {
  it('puts usage.costUsd on responses of a model with a known price, streamed or not', async () => {
    server = await fakeAnthropicServer([
      { content: 'a', usage: { inputTokens: 2000, outputTokens: 100, cacheReadTokens: 1500 } },
      { content: 'b', usage: { inputTokens: 2000, outputTokens: 100, cacheReadTokens: 1500 } },
    ]);
    const model = resolveModel('anthropic:claude-sonnet-4-6', {
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
    });
    const expected = (500 * 3 + 1500 * 0.3 + 100 * 15) / 1_000_000;
    expect((await model.generate(hi())).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 100,
      cacheReadTokens: 1500,
      costUsd: expected,
    });
    expect((await collectStream(model.stream!(hi()))).at(-1)).toMatchObject({
      response: { usage: { costUsd: expected } },
    });
    expect(model.id).toBe('anthropic:claude-sonnet-4-6');
  });

  it('leaves costUsd out for an unknown model; prices adds entries and overrides built-in ones', async () => {
    server = await fakeOpenAIServer([
      { content: 'a', usage: { inputTokens: 1000, outputTokens: 1000 } },
      { content: 'b', usage: { inputTokens: 1000, outputTokens: 1000 } },
      { content: 'c', usage: { inputTokens: 1000, outputTokens: 1000 } },
    ]);
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL };
    expect((await resolveModel('openai:fake-model', { env }).generate(hi())).usage).toEqual({
      inputTokens: 1000,
      outputTokens: 1000,
    });
    const added = resolveModel('openai:fake-model', {
      env,
      prices: { 'openai:fake-model': { inputPerMTok: 1, outputPerMTok: 2 } },
    });
    expect((await added.generate(hi())).usage?.costUsd).toBe(0.003);
    const overridden = resolveModel('openai:gpt-4o-mini', {
      env,
      prices: { 'openai:gpt-4o-mini': { inputPerMTok: 0, outputPerMTok: 0 } },
    });
    expect((await overridden.generate(hi())).usage?.costUsd).toBe(0);
  });

  it('refuses a negative or non-finite price, naming the entry and field', () => {
    const env = { OPENAI_API_KEY: 'k' };
    expect(
      configError(() =>
        resolveModel('openai:gpt-4o', { env, prices: { 'openai:x': { inputPerMTok: -1, outputPerMTok: 1 } } }),
      ),
    ).toBe(
      'prices["openai:x"].inputPerMTok must be a finite number of US dollars per million tokens, >= 0; got number -1.',
    );
    expect(
      configError(() =>
        resolveModel('openai:gpt-4o', {
          env,
          prices: { 'openai:x': { inputPerMTok: 1, outputPerMTok: Number.POSITIVE_INFINITY } },
        }),
      ),
    ).toContain('prices["openai:x"].outputPerMTok must be a finite number');
    expect(
      configError(() =>
        resolveModel('openai:gpt-4o', {
          env,
          prices: { 'openai:x': { inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: Number.NaN } },
        }),
      ),
    ).toContain('cacheReadPerMTok must be a finite number');
    expect(configError(() => resolveModel('openai:gpt-4o', { env, prices: { 'openai:x': 3 as never } }))).toContain(
      'prices["openai:x"] must be an object',
    );
  });

  it('withCost prices a dated Anthropic id by its undated entry and leaves an unpriced model as it is', () => {
    const model = {
      id: 'anthropic:claude-haiku-4-5-20251001',
      generate: async () => ({ content: '', usage: { inputTokens: 1_000_000, outputTokens: 0 } }),
    };
    const unpriced = { id: 'openai-compatible:http://x/v1#m', generate: async () => ({ content: '' }) };
    expect(withCost(unpriced)).toBe(unpriced);
    return expect(withCost(model).generate(hi())).resolves.toMatchObject({ usage: { costUsd: 1 } });
  });
});
