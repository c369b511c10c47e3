// The models of this package inside the agent loop (@bridle/core), over the real adapters and fake provider
// servers: which model answered behind a fallback, a final answer cut by the output limit, and cost budgets.
import { runAgent } from '@bridle/core';
import type { RunEvent, Tool } from '@bridle/protocol';
import { type FakeProviderServer, fakeAnthropicServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fallback } from '../src/fallback';
import { resolveModel } from '../src/resolve-model';

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const noop: Tool = { name: 'noop', description: 'Does nothing', parameters: { type: 'object' }, execute: () => 'ok' };
const noopCall = (id: string) => ({ id, name: 'noop', arguments: {} });

describe('runAgent with @bridle/models', () => {
  it('behind a fallback, model_end.model and result.model name the model that answered', async () => {
    const claude = await fakeAnthropicServer([{ type: 'http_error', status: 529, message: 'Overloaded' }]);
    const gpt = await fakeOpenAIServer([
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
    const events: RunEvent[] = [];
    const result = await runAgent({
      model,
      prompt: 'hi',
      retry: { maxRetries: 0 },
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'Hello from GPT.', model: gptModel.id });
    expect(result.usage.costUsd).toBeCloseTo((1000 * 0.15 + 100 * 0.6) / 1_000_000, 12);
    const modelEnd = events.find((event) => event.type === 'model_end');
    expect(modelEnd).toMatchObject({ model: gptModel.id });
    expect(claude.requests).toHaveLength(1);
  });

  it("an Anthropic answer cut by max_tokens completes with finishReason 'length', streamed or not", async () => {
    for (const stream of [false, true]) {
      const server = await fakeAnthropicServer([
        { type: 'response', response: { content: 'The first half' }, stopReason: 'max_tokens' },
      ]);
      servers.push(server);
      const model = resolveModel('anthropic:claude-sonnet-4-6', {
        env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
      });
      const result = await runAgent({ model, prompt: 'hi', stream });
      expect(result).toMatchObject({ status: 'completed', answer: 'The first half', finishReason: 'length' });
    }
  });

  it('usage.costUsd priced by resolveModel counts toward budget.maxCostUsd', async () => {
    const step = (id: string) => ({
      content: '',
      toolCalls: [noopCall(id)],
      usage: { inputTokens: 1_000_000, outputTokens: 0 },
    });
    const server = await fakeOpenAIServer([step('c1'), step('c2'), step('c3'), { content: 'done' }]);
    servers.push(server);
    // gpt-4o-mini: $0.15 per million input tokens, so each step costs $0.15.
    const model = resolveModel('openai:gpt-4o-mini', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL } });
    const result = await runAgent({ model, tools: [noop], prompt: 'go', budget: { maxCostUsd: 0.3 } });
    expect(result).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect(result.usage.costUsd).toBeCloseTo(0.3, 12);
    expect(server.requests).toHaveLength(2);
  });
});
