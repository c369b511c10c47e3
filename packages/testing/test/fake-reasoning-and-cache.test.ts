import { afterEach, describe, expect, it } from 'vitest';
import { fakeAnthropicServer } from '../src/fake-anthropic-server';
import { fakeOpenAIServer } from '../src/fake-openai-server';
import { FakePromptCache } from '../src/fake-prompt-cache';
import type { FakeProviderStep } from '../src/fake-provider-script';
import type { FakeProviderServer } from '../src/fake-provider-server';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON, inspected loosely in tests
type Json = any;

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function postJson(path: string, body: unknown): Promise<Json> {
  return (await post(path, body)).json();
}

function events(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '' && !frame.includes('[DONE]'))
    .map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null'));
}

const thinkingStep: FakeProviderStep = {
  type: 'response',
  response: {
    content: 'Sunny.',
    usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 30 },
  },
  reasoning: [{ text: 'Think first.', signature: 'sig-1' }, { redacted: 'opaque' }],
};

describe('fake servers: reasoning shapes and cache usage', () => {
  it('Anthropic: thinking and redacted_thinking blocks first, cache usage apart from input_tokens', async () => {
    server = await fakeAnthropicServer([thinkingStep]);
    const message = await postJson('/v1/messages', { model: 'claude-x', max_tokens: 10, messages: [] });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Think first.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Sunny.' },
    ]);
    expect(message.usage).toEqual({
      input_tokens: 10,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 60,
      output_tokens: 20,
      service_tier: 'standard',
    });
  });

  it('Anthropic: streams thinking_delta and signature_delta, and the redacted block whole', async () => {
    server = await fakeAnthropicServer([thinkingStep]);
    const stream = await (
      await post('/v1/messages', { model: 'claude-x', max_tokens: 10, messages: [], stream: true })
    ).text();
    const blocks = events(stream).filter((event) => String(event.type).startsWith('content_block'));
    expect(blocks.slice(0, 6)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'first.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
    ]);
    expect(blocks.find((event) => event.index === 2)).toMatchObject({ content_block: { type: 'text' } });
  });

  it('Responses: reasoning items first, with encrypted_content only when the request includes it; usage details', async () => {
    server = await fakeOpenAIServer([thinkingStep, thinkingStep]);
    const plain = await postJson('/v1/responses', { model: 'gpt-x', input: 'hi', store: false });
    expect(plain.output[0]).toEqual({
      id: 'rs_fake0001_0',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Think first.' }],
    });
    expect(plain.output[2]).toMatchObject({ type: 'message' });
    expect(plain.usage).toMatchObject({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    const streamed = await (
      await post('/v1/responses', {
        model: 'gpt-x',
        input: 'hi',
        stream: true,
        include: ['reasoning.encrypted_content'],
      })
    ).text();
    const done = events(streamed).filter((event) => event.type === 'response.output_item.done');
    expect(done[0]?.item).toEqual({
      id: 'rs_fake0002_0',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Think first.' }],
      encrypted_content: 'sig-1',
    });
    expect(done[1]?.item).toMatchObject({ type: 'reasoning', encrypted_content: 'opaque' });
    expect(events(streamed).filter((event) => event.type === 'response.reasoning_summary_text.delta')).toHaveLength(2);
  });

  it('Chat: cached and reasoning tokens in the usage details', async () => {
    server = await fakeOpenAIServer([
      { content: 'ok', usage: { inputTokens: 50, outputTokens: 9, cacheReadTokens: 40, reasoningTokens: 7 } },
    ]);
    const completion = await postJson('/v1/chat/completions', { model: 'm', messages: [] });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 50,
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
  });
});

describe('FakePromptCache', () => {
  const system = (text: string) => [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
  const user = (text: string, cached = true) => ({
    role: 'user',
    content: [{ type: 'text', text, ...(cached ? { cache_control: { type: 'ephemeral' } } : {}) }],
  });

  it('writes at breakpoints and reads the longest earlier prefix; no breakpoint, no cache', () => {
    const cache = new FakePromptCache();
    const first = cache.account({ model: 'm', system: system('S'.repeat(400)), messages: [user('hello')] });
    expect(first.read).toBe(0);
    expect(first.write).toBeGreaterThan(100);
    expect(first.uncached).toBe(0);
    const second = cache.account({
      model: 'm',
      system: system('S'.repeat(400)),
      messages: [user('hello'), { role: 'assistant', content: 'hi' }, user('more', false)],
    });
    expect(second.read).toBe(first.write);
    expect(second.write).toBe(0);
    expect(second.uncached).toBeGreaterThan(0);
    const otherModel = cache.account({ model: 'n', system: system('S'.repeat(400)), messages: [user('hello')] });
    expect(otherModel.read).toBe(0);
  });

  it('looks back at most 20 blocks from a breakpoint', () => {
    const cache = new FakePromptCache();
    const base = [user('start')];
    cache.account({ model: 'm', messages: base });
    const filler = Array.from({ length: 25 }, (_, index) => ({
      role: index % 2 ? 'user' : 'assistant',
      content: `m${index}`,
    }));
    const far = cache.account({ model: 'm', messages: [user('start', false), ...filler, user('end')] });
    expect(far.read).toBe(0);
    const near = cache.account({ model: 'm', messages: [user('start', false), ...filler.slice(0, 10), user('end')] });
    expect(near.read).toBeGreaterThan(0);
  });
});
