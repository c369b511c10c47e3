import { runAgent } from '@bridle/core';
import type { Tool } from '@bridle/protocol';
import { expectValidTranscript } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { bodyOf, serve } from './helpers';

const add: Tool<{ a: number; b: number }, number> = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  readOnly: true,
  execute: ({ a, b }) => a + b,
};

describe.each([
  ['responses', false],
  ['responses', true],
  ['chat', false],
  ['chat', true],
] as const)('runAgent over openai (%s, stream %s)', (api, stream) => {
  it('completes a two-step tool task', async () => {
    const server = await serve([
      {
        content: '',
        toolCalls: [{ id: 'call_add', name: 'add', arguments: { a: 2, b: 3 } }],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { content: 'The sum is 5.', usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api });

    const result = await runAgent({ model, tools: [add], system: 'You add.', prompt: 'What is 2 + 3?', stream });

    expect(result).toMatchObject({ status: 'completed', answer: 'The sum is 5.', steps: 2, toolCalls: 1 });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 9 });
    expectValidTranscript(result.messages);
    expect(server.requests).toHaveLength(2);
    const second = bodyOf(server, 1);
    if (api === 'responses') {
      expect(second.instructions).toBe('You add.');
      expect(second.input).toEqual([
        { role: 'user', content: 'What is 2 + 3?' },
        { type: 'function_call', call_id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' },
        { type: 'function_call_output', call_id: 'call_add', output: '5' },
      ]);
    } else {
      expect(second.messages).toEqual([
        { role: 'system', content: 'You add.' },
        { role: 'user', content: 'What is 2 + 3?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_add', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }],
        },
        { role: 'tool', tool_call_id: 'call_add', content: '5' },
      ]);
    }
  });
});

describe('runAgent over openai: failures', () => {
  it('retries a 429 after its Retry-After and recovers from malformed arguments', async () => {
    const server = await serve([
      { type: 'http_error', status: 429, headers: { 'retry-after-ms': '10' } },
      { content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a": 2, "b":' }] },
      { content: '', toolCalls: [{ id: 'c2', name: 'add', arguments: { a: 2, b: 3 } }] },
      { content: '5' },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const result = await runAgent({ model, tools: [add], prompt: 'add', retry: { baseDelayMs: 1 } });

    expect(result).toMatchObject({ status: 'completed', answer: '5', steps: 3 });
    expect(server.requests).toHaveLength(4);
    const third = bodyOf(server, 2).input as { type?: string; output?: string }[];
    expect(third[2]?.type).toBe('function_call_output');
    expect(third[2]?.output).toMatch(/^Invalid arguments/);
  });

  it.each([
    ['responses', false],
    ['responses', true],
    ['chat', false],
    ['chat', true],
  ] as const)(
    'keeps a truncated answer, and ends with model_error (one attempt) when truncation left nothing (%s, stream %s)',
    async (api, stream) => {
      const stopReason = api === 'chat' ? 'length' : 'max_output_tokens';
      const server = await serve([
        { type: 'response', response: { content: 'The sum is' }, stopReason },
        { type: 'response', response: { content: '' }, stopReason },
      ]);
      const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api, maxOutputTokens: 3 });

      const cut = await runAgent({ model, tools: [add], prompt: 'What is 2 + 3?', stream });
      const empty = await runAgent({ model, tools: [add], prompt: 'What is 2 + 3?', stream });

      expect(cut).toMatchObject({ status: 'completed', answer: 'The sum is' });
      expect(empty).toMatchObject({
        status: 'model_error',
        steps: 0,
        error: expect.stringContaining('Raise maxOutputTokens'),
      });
      expect(server.requests).toHaveLength(2);
    },
  );

  it('ends aborted (not model_error) when the caller aborts mid-stream', async () => {
    const server = await serve([{ type: 'hang', response: { content: 'one two three four' }, afterEvents: 6 }]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });
    const controller = new AbortController();

    const result = await runAgent({
      model,
      prompt: 'go',
      stream: true,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'text_delta') controller.abort();
      },
    });

    expect(result.status).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });
});
