import { runAgent } from '@bridle/core';
import type { Model, ModelResponse, Tool } from '@bridle/protocol';
import { type FakeProviderServer, fakeAnthropicServer } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropic, MAX_CACHE_BREAKPOINTS } from '../src/index';
import { bodyOf, modelRequest, roundTripTranscript, serve, timeTool, weatherTool } from './helpers';

const ephemeral = { type: 'ephemeral' };

let cacheServer: FakeProviderServer | undefined;
afterEach(async () => {
  await cacheServer?.close();
  cacheServer = undefined;
});

/** Every `cache_control` in a request body, wherever it is. */
function breakpoints(body: unknown): number {
  return (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
}

describe('anthropic prompt caching: breakpoints', () => {
  it('marks the system prompt (caching the tools before it) and the last block of the last two user turns', async () => {
    const server = await serve([{ content: 'ok' }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
    await model.generate(
      modelRequest(
        [...roundTripTranscript, { role: 'assistant', content: 'Sunny.' }, { role: 'user', content: 'And Oslo?' }],
        {
          system: 'Be brief.',
          tools: [weatherTool, timeTool],
        },
      ),
    );
    const body = bodyOf(server);
    expect(body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: ephemeral }]);
    expect(JSON.stringify(body.tools)).not.toContain('cache_control');
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and the time?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'Sunny, 21 C' },
          {
            type: 'tool_result',
            tool_use_id: 'call_2',
            content: 'clock unavailable',
            is_error: true,
            cache_control: ephemeral,
          },
        ],
      },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: [{ type: 'text', text: 'And Oslo?', cache_control: ephemeral }] },
    ]);
    expect(breakpoints(body)).toBe(3);
  });

  it('marks the last tool when there is no system prompt, and nothing at all with promptCache: false', async () => {
    const server = await serve([{ content: 'ok' }, { content: 'ok' }]);
    const request = modelRequest([{ role: 'user', content: 'Hi' }], { tools: [weatherTool, timeTool] });
    await anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL }).generate(request);
    await anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL, promptCache: false }).generate({
      ...request,
      system: 'Be brief.',
    });
    expect(bodyOf(server, 0).tools).toEqual([
      expect.not.objectContaining({ cache_control: expect.anything() }),
      {
        name: 'get_time',
        description: 'Current time',
        input_schema: { type: 'object', properties: {} },
        cache_control: ephemeral,
      },
    ]);
    expect(breakpoints(bodyOf(server, 0))).toBe(2);
    expect(breakpoints(bodyOf(server, 1))).toBe(0);
    expect(bodyOf(server, 1).system).toBe('Be brief.');
  });
});

/** A tool whose results are the size of a typical file read. */
const readNote: Tool<{ page: number }, string> = {
  name: 'read_note',
  description: 'Reads one page of the notebook',
  parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
  readOnly: true,
  execute: ({ page }) => `Page ${page}: ${'The meeting moved to Thursday; bring the quarterly figures. '.repeat(6)}`,
};

const SYSTEM = `You are a careful assistant that reads a notebook page by page before answering. ${'Cite the page numbers you used. Never invent figures. '.repeat(30)}`;

describe('anthropic prompt caching on a server that honours breakpoints', () => {
  it('serves at least 80% of the input tokens of a 20-turn tool conversation from the cache from turn 3 on', async () => {
    const turns = 20;
    cacheServer = await fakeAnthropicServer(
      (_request, index) =>
        index < turns - 1
          ? {
              content: `Reading page ${index + 1}.`,
              toolCalls: [{ id: `toolu_${index}`, name: 'read_note', arguments: { page: index + 1 } }],
            }
          : { content: 'All 19 pages say the meeting moved to Thursday.' },
      { promptCache: true },
    );
    const inner = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: cacheServer.baseURL });
    const responses: ModelResponse[] = [];
    const model: Model = {
      id: inner.id,
      generate: async (request) => {
        const response = await inner.generate(request);
        responses.push(response);
        return response;
      },
    };

    const result = await runAgent({
      model,
      tools: [readNote],
      system: SYSTEM,
      prompt: 'What does the notebook say?',
      maxSteps: turns,
    });

    expect(result.status).toBe('completed');
    expect(responses).toHaveLength(turns);
    for (const request of cacheServer.requests)
      expect(breakpoints(request.body)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
    const fromTurn3 = responses.slice(2);
    const input = fromTurn3.reduce((sum, response) => sum + (response.usage?.inputTokens ?? 0), 0);
    const read = fromTurn3.reduce((sum, response) => sum + (response.usage?.cacheReadTokens ?? 0), 0);
    const share = read / input;
    console.log(
      `prompt cache: ${read} of ${input} input tokens from turn 3 on were cache reads (${(share * 100).toFixed(1)}%)`,
    );
    expect(share).toBeGreaterThanOrEqual(0.8);
    // The first turn writes, the second reads the first one's prefix; nothing is ever uncached but the new tail.
    expect(responses[0]?.usage).toMatchObject({ cacheWriteTokens: expect.any(Number) });
    expect(responses[0]?.usage?.cacheReadTokens).toBeUndefined();
    expect(responses[1]?.usage?.cacheReadTokens).toBe(responses[0]?.usage?.cacheWriteTokens);
  });

  it('reads nothing from the cache when promptCache is off', async () => {
    cacheServer = await fakeAnthropicServer([{ content: 'a' }, { content: 'b' }], { promptCache: true });
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: cacheServer.baseURL, promptCache: false });
    const request = modelRequest([{ role: 'user', content: 'Hi' }], { system: SYSTEM });
    const first = await model.generate(request);
    const second = await model.generate(request);
    expect(first.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(second.usage).toEqual(first.usage);
  });
});
