import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { bodyOf, collect, modelRequest, roundTripTranscript, serve, timeTool, weatherTool } from './helpers';

describe('openai (Responses API) against the fake server', () => {
  it('sends a plain text request statelessly and maps the answer and usage', async () => {
    const server = await serve([{ content: 'Hello there', usage: { inputTokens: 12, outputTokens: 3 } }]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const response = await model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { system: 'Be brief.' }));

    expect(model.id).toBe('openai:gpt-test');
    expect(response).toEqual({
      content: 'Hello there',
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: 'stop',
      providerData: { openai: { model: 'gpt-test', api: 'responses', status: 'completed' } },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]?.body).toEqual({
      store: false,
      model: 'gpt-test',
      input: [{ role: 'user', content: 'Hi' }],
      instructions: 'Be brief.',
    });
  });

  it('sends tools as non-strict function tools and maps one tool call', async () => {
    const server = await serve([
      { content: '', toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } }] },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const response = await model.generate(
      modelRequest([{ role: 'user', content: 'Weather?' }], { tools: [weatherTool] }),
    );

    expect(response.content).toBe('');
    expect(response.toolCalls).toEqual([{ id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(bodyOf(server, 0).tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Current weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: false,
      },
    ]);
  });

  it('maps several tool calls with text, in order', async () => {
    const server = await serve([
      {
        content: 'Let me check.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_time', arguments: {} },
        ],
      },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const response = await model.generate(
      modelRequest([{ role: 'user', content: 'Both?' }], { tools: [weatherTool, timeTool] }),
    );

    expect(response.content).toBe('Let me check.');
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_b', name: 'get_time', arguments: {} },
    ]);
  });

  it('sends a tool result round trip as function_call and function_call_output items', async () => {
    const server = await serve([{ content: 'Sunny in Paris.' }]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const response = await model.generate(modelRequest(roundTripTranscript, { tools: [weatherTool, timeTool] }));

    expect(response.content).toBe('Sunny in Paris.');
    expect(bodyOf(server, 0).input).toEqual([
      { role: 'user', content: 'Weather in Paris and the time?' },
      { role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'get_time', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 C' },
      { type: 'function_call_output', call_id: 'call_2', output: 'clock unavailable' },
    ]);
  });

  it('streams text deltas first, then the response with calls assembled from interleaved argument deltas', async () => {
    const server = await serve([
      {
        type: 'response',
        interleave: true,
        response: {
          content: 'Checking both cities now.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
          usage: { inputTokens: 20, outputTokens: 9 },
        },
      },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });

    const parts = await collect(
      model.stream!(modelRequest([{ role: 'user', content: 'Go' }], { tools: [weatherTool] })),
    );

    expect(bodyOf(server, 0).stream).toBe(true);
    expect(parts).toEqual([
      { type: 'text_delta', text: 'Checking ' },
      { type: 'text_delta', text: 'both ' },
      { type: 'text_delta', text: 'cities ' },
      { type: 'text_delta', text: 'now.' },
      {
        type: 'response',
        response: {
          content: 'Checking both cities now.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
          usage: { inputTokens: 20, outputTokens: 9 },
          finishReason: 'tool_calls',
          providerData: { openai: { model: 'gpt-test', api: 'responses', status: 'completed' } },
        },
      },
    ]);
  });

  it('passes malformed JSON arguments on as the raw string, and sends them back verbatim', async () => {
    const malformed = '{"city": "Par';
    const call = { id: 'call_x', name: 'get_weather', arguments: malformed };
    const server = await serve([
      { content: '', toolCalls: [call] },
      { content: '', toolCalls: [call] },
      { content: 'ok' },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api: 'responses' });
    const request = modelRequest([{ role: 'user', content: 'Weather?' }], { tools: [weatherTool] });

    expect((await model.generate(request)).toolCalls).toEqual([call]);
    const parts = await collect(model.stream!(request));
    expect(parts.at(-1)).toEqual({ type: 'response', response: expect.objectContaining({ toolCalls: [call] }) });

    await model.generate(
      modelRequest([
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', callId: 'call_x', name: 'get_weather', content: 'Invalid arguments', isError: true },
      ]),
    );
    expect((bodyOf(server, 2).input as unknown[])[1]).toEqual({
      type: 'function_call',
      call_id: 'call_x',
      name: 'get_weather',
      arguments: malformed,
    });
  });

  it('sends maxOutputTokens, temperature and providerOptions, which may set store but not model, input or stream', async () => {
    const server = await serve([{ content: 'ok' }]);
    const model = openai({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      api: 'responses',
      maxOutputTokens: 256,
      temperature: 0.2,
      providerOptions: { reasoning: { effort: 'low' }, input: 'ignored', model: 'other', stream: true, store: true },
    });

    await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));

    expect(server.requests[0]?.body).toEqual({
      store: true,
      max_output_tokens: 256,
      temperature: 0.2,
      reasoning: { effort: 'low' },
      model: 'gpt-test',
      input: [{ role: 'user', content: 'Hi' }],
    });
  });
});
