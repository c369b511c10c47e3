import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/index';
import { bodyOf, collect, modelRequest, roundTripTranscript, serve, timeTool, weatherTool } from './helpers';

describe('anthropic against the fake server', () => {
  it('sends the system prompt apart and maps plain text and usage', async () => {
    const server = await serve([{ content: 'Hello there', usage: { inputTokens: 12, outputTokens: 3 } }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'sk-ant-test', baseURL: server.baseURL });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { system: 'Be brief.' }));

    expect(model.id).toBe('anthropic:claude-test');
    expect(response).toEqual({
      content: 'Hello there',
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: 'stop',
      providerData: { anthropic: { model: 'claude-test', stopReason: 'end_turn' } },
    });
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-ant-test');
    // Prompt caching is on by default: breakpoints on the system prompt and on the newest user turn.
    expect(bodyOf(server)).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    });
  });

  it('sends tools with input_schema and maps one tool call', async () => {
    const server = await serve([
      { content: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
    ]);
    const model = anthropic({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: server.baseURL,
      maxTokens: 100,
      promptCache: false,
    });

    const response = await model.generate(
      modelRequest([{ role: 'user', content: 'Weather?' }], { tools: [weatherTool] }),
    );

    expect(response.content).toBe('');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(bodyOf(server).max_tokens).toBe(100);
    expect(bodyOf(server).tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
  });

  it('maps several tool calls after text, in order', async () => {
    const server = await serve([
      {
        content: 'Let me check.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'toolu_2', name: 'get_time', arguments: {} },
        ],
      },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const response = await model.generate(
      modelRequest([{ role: 'user', content: 'Both?' }], { tools: [weatherTool, timeTool] }),
    );

    expect(response).toMatchObject({
      content: 'Let me check.',
      toolCalls: [
        { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'toolu_2', name: 'get_time', arguments: {} },
      ],
    });
  });

  it('sends tool_use blocks, and merges consecutive tool results (with is_error) and the next user text into one turn', async () => {
    const server = await serve([{ content: 'Sunny.' }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL, promptCache: false });

    await model.generate(
      modelRequest(
        [
          ...roundTripTranscript,
          { role: 'user', content: 'Also, thanks.' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_3', name: 'get_time', arguments: '{bad' }] },
          { role: 'tool', callId: 'call_3', name: 'get_time', content: 'Invalid arguments', isError: true },
        ],
        { tools: [weatherTool, timeTool] },
      ),
    );

    expect(bodyOf(server).messages).toEqual([
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
          { type: 'tool_result', tool_use_id: 'call_2', content: 'clock unavailable', is_error: true },
          { type: 'text', text: 'Also, thanks.' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_3', name: 'get_time', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_3', content: 'Invalid arguments', is_error: true }],
      },
    ]);
  });

  it('streams text deltas, then tool calls assembled from input_json_delta, with usage', async () => {
    const server = await serve([
      {
        content: 'Checking both.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'toolu_2', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
        usage: { inputTokens: 40, outputTokens: 12 },
      },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const parts = await collect(
      model.stream!(modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool] })),
    );

    expect(bodyOf(server).stream).toBe(true);
    expect(parts).toEqual([
      { type: 'text_delta', text: 'Checking ' },
      { type: 'text_delta', text: 'both.' },
      {
        type: 'response',
        response: {
          content: 'Checking both.',
          toolCalls: [
            { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'toolu_2', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
          usage: { inputTokens: 40, outputTokens: 12 },
          finishReason: 'tool_calls',
          providerData: { anthropic: { model: 'claude-test', stopReason: 'tool_use' } },
        },
      },
    ]);
  });

  it('passes streamed malformed JSON arguments on as the raw string', async () => {
    const server = await serve([
      { content: '', toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: '{"city": "Pa' }] },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });

    const parts = await collect(
      model.stream!(modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool] })),
    );

    expect(parts).toEqual([
      {
        type: 'response',
        response: {
          content: '',
          toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: '{"city": "Pa' }],
          usage: expect.any(Object),
          finishReason: 'tool_calls',
          providerData: expect.any(Object),
        },
      },
    ]);
  });

  it('keeps a max_tokens answer, and reports an empty context-window stop as context_length', async () => {
    const server = await serve([
      { type: 'response', response: { content: 'Truncated ans' }, stopReason: 'max_tokens' },
      { type: 'response', response: { content: '' }, stopReason: 'model_context_window_exceeded' },
    ]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
    const request = modelRequest([{ role: 'user', content: 'Go' }]);

    expect(await model.generate(request)).toMatchObject({ content: 'Truncated ans', finishReason: 'length' });
    await expect(model.generate(request)).rejects.toMatchObject({ code: 'context_length', retryable: false });
  });
});
