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
    expect(bodyOf(server, 1)).toMatchObject({
      system: 'You add.',
      messages: [
        { role: 'user', content: 'What is 2 + 3?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding.' },
            { type: 'tool_use', id: 'toolu_add', name: 'add', input: { a: 2, b: 3 } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_add', content: '5' }] },
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

  it('ends with model_error, not retried, on an auth failure', async () => {
    const server = await serve([{ type: 'http_error', status: 401, message: 'invalid x-api-key' }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const result = await runAgent({ model, prompt: 'hi' });

    expect(result.status).toBe('model_error');
    expect(result.error).toContain('invalid x-api-key');
    expect(server.requests).toHaveLength(1);
  });
});
