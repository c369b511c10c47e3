import { runAgent } from '@bridle/core';
import type { Tool } from '@bridle/protocol';
import { expectValidTranscript } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/index';
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

describe.each([false, true])('runAgent over anthropic (stream %s)', (stream) => {
  it('completes a two-step tool task', async () => {
    const server = await serve([
      {
        content: 'Adding.',
        toolCalls: [{ id: 'toolu_add', name: 'add', arguments: { a: 2, b: 3 } }],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { content: 'The sum is 5.', usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const result = await runAgent({ model, tools: [add], system: 'You add.', prompt: 'What is 2 + 3?', stream });

    expect(result).toMatchObject({ status: 'completed', answer: 'The sum is 5.', steps: 2, toolCalls: 1 });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 9 });
    expectValidTranscript(result.messages);
    const ephemeral = { type: 'ephemeral' };
    expect(bodyOf(server, 1)).toMatchObject({
      system: [{ type: 'text', text: 'You add.', cache_control: ephemeral }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is 2 + 3?', cache_control: ephemeral }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding.' },
            { type: 'tool_use', id: 'toolu_add', name: 'add', input: { a: 2, b: 3 } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_add', content: '5', cache_control: ephemeral }],
        },
      ],
    });
  });
});

describe('runAgent over anthropic: failures', () => {
  it('retries a mid-stream overloaded_error and completes', async () => {
    const server = await serve([
      { type: 'stream_error', errorType: 'overloaded_error', before: { content: 'The su' } },
      { content: 'The sum is 5.' },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const result = await runAgent({ model, prompt: '2 + 3?', stream: true, retry: { baseDelayMs: 1 } });

    expect(result).toMatchObject({ status: 'completed', answer: 'The sum is 5.', steps: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it('ends with model_error and runs nothing when the output limit cuts a tool call', async () => {
    const server = await serve([
      {
        type: 'response',
        response: { content: '', toolCalls: [{ id: 'toolu_add', name: 'add', arguments: '{"a": 2, "b' }] },
        stopReason: 'max_tokens',
      },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
    let runs = 0;
    const counted = {
      ...add,
      execute: (args: { a: number; b: number }) => {
        runs++;
        return args.a + args.b;
      },
    };

    const result = await runAgent({ model, tools: [counted], prompt: '2 + 3?', stream: true });

    expect(result.status).toBe('model_error');
    expect(result.error).toContain('cut the answer in the middle of a tool call (add)');
    expect(runs).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('ends with model_error, not retried, on an auth failure', async () => {
    const server = await serve([{ type: 'http_error', status: 401, message: 'invalid x-api-key' }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const result = await runAgent({ model, prompt: 'hi' });

    expect(result.status).toBe('model_error');
    expect(result.error).toContain('invalid x-api-key');
    expect(server.requests).toHaveLength(1);
  });
});
