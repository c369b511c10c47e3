import { afterEach, describe, expect, it, vi } from 'vitest';
import { openai, openaiCompatible } from '../src/index';
import { bodyOf, collect, modelRequest, roundTripTranscript, serve, timeTool, weatherTool } from './helpers';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('openai (Chat Completions) against the fake server', () => {
  it('sends the system prompt as the first message and maps plain text and usage', async () => {
    const server = await serve([{ content: 'Hello there', usage: { inputTokens: 7, outputTokens: 2 } }]);
    const model = openai({ model: 'llama3', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { system: 'Be brief.' }));

    expect(model.id).toBe(`openai-compatible:${server.baseURL}#llama3`);
    expect(response).toEqual({
      content: 'Hello there',
      usage: { inputTokens: 7, outputTokens: 2 },
      finishReason: 'stop',
      providerData: { 'openai-compatible': { model: 'llama3', api: 'chat', finishReason: 'stop' } },
    });
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.body).toEqual({
      model: 'llama3',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
  });

  it('sends tools as function tools and maps one and several tool calls', async () => {
    const server = await serve([
      { content: '', toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } }] },
      {
        content: 'Both:',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_time', arguments: {} },
        ],
      },
    ]);
    const model = openai({ model: 'llama3', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });
    const request = modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool, timeTool] });

    const one = await model.generate(request);
    const several = await model.generate(request);

    expect(one.toolCalls).toEqual([{ id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(one.content).toBe('');
    expect(several).toMatchObject({
      content: 'Both:',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'get_time', arguments: {} },
      ],
    });
    expect(bodyOf(server, 0).tools).toEqual([
      { type: 'function', function: { ...weatherTool } },
      { type: 'function', function: { ...timeTool } },
    ]);
  });

  it('sends a tool result round trip as tool_calls and tool messages', async () => {
    const server = await serve([{ content: 'Sunny.' }]);
    const model = openai({ model: 'llama3', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });

    await model.generate(
      modelRequest(
        [
          ...roundTripTranscript,
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_3', name: 'get_time', arguments: 'nope' }] },
          { role: 'tool', callId: 'call_3', name: 'get_time', content: 'Invalid arguments', isError: true },
        ],
        { tools: [weatherTool, timeTool] },
      ),
    );

    expect(bodyOf(server, 0).messages).toEqual([
      { role: 'user', content: 'Weather in Paris and the time?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'clock unavailable' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'get_time', arguments: 'nope' } }],
      },
      { role: 'tool', tool_call_id: 'call_3', content: 'Invalid arguments' },
    ]);
  });

  it('streams text deltas, then calls assembled by index from interleaved deltas, with the usage chunk', async () => {
    const server = await serve([
      {
        type: 'response',
        interleave: true,
        response: {
          content: 'On it.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_b', name: 'get_weather', arguments: '{"city": "Os' },
          ],
          usage: { inputTokens: 30, outputTokens: 11 },
        },
      },
    ]);
    const model = openai({ model: 'llama3', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });

    const parts = await collect(
      model.stream!(modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool] })),
    );

    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(parts).toEqual([
      { type: 'text_delta', text: 'On ' },
      { type: 'text_delta', text: 'it.' },
      {
        type: 'response',
        response: {
          content: 'On it.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_b', name: 'get_weather', arguments: '{"city": "Os' },
          ],
          usage: { inputTokens: 30, outputTokens: 11 },
          finishReason: 'tool_calls',
          providerData: { 'openai-compatible': { model: 'llama3', api: 'chat', finishReason: 'tool_calls' } },
        },
      },
    ]);
  });

  it('maps malformed JSON arguments to the raw string without streaming too', async () => {
    const server = await serve([{ content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{city:' }] }]);
    const model = openai({ model: 'llama3', apiKey: 'sk-test', baseURL: server.baseURL, api: 'chat' });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool] }));

    expect(response.toolCalls).toEqual([{ id: 'c1', name: 'get_weather', arguments: '{city:' }]);
  });

  it('sends max_tokens and temperature', async () => {
    const server = await serve([{ content: 'ok' }]);
    const model = openai({
      model: 'llama3',
      apiKey: 'k',
      baseURL: server.baseURL,
      api: 'chat',
      maxOutputTokens: 64,
      temperature: 0,
    });
    await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));
    expect(server.requests[0]?.body).toEqual({
      max_tokens: 64,
      temperature: 0,
      model: 'llama3',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});

describe('openaiCompatible', () => {
  it('uses Chat Completions without a key and never sends OPENAI_API_KEY to another server', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-secret-openai-key');
    const server = await serve([{ content: 'local answer' }]);
    const model = openaiCompatible({ baseURL: `${server.baseURL}/`, model: 'qwen' });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));

    expect(model.id).toBe(`openai-compatible:${server.baseURL}#qwen`);
    expect(response.content).toBe('local answer');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('sends the key it is given', async () => {
    const server = await serve([{ content: 'ok' }]);
    const model = openaiCompatible({ baseURL: server.baseURL, model: 'qwen', apiKey: 'local-key' });
    await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));
    expect(server.requests[0]?.headers.authorization).toBe('Bearer local-key');
  });
});
