import { ProviderError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/index';
import { bodyOf, collect, modelRequest, rejection, serve, weatherTool } from './helpers';

/** Real Messages API shapes (docs.anthropic.com: streaming, extended thinking, server tools), replayed raw. */
const thinking = { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EqQBCgIYAhIM' };
const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' };

function message(content: unknown[], stop_reason: string, usage: Record<string, unknown> = {}) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason,
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 20,
      ...usage,
    },
  };
}

const start = (usage: Record<string, unknown> = {}) => ({
  type: 'message_start',
  message: { ...message([], null as unknown as string, { output_tokens: 1, ...usage }), stop_reason: null },
});
const block = (index: number, content_block: unknown) => ({ type: 'content_block_start', index, content_block });
const delta = (index: number, value: unknown) => ({ type: 'content_block_delta', index, delta: value });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const end = (stop_reason: string, usage: Record<string, unknown> = { output_tokens: 40 }) => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage },
  { type: 'message_stop' },
];

const model = (baseURL: string) => anthropic({ model: 'claude-test', apiKey: 'k', baseURL, promptCache: false });
const ask = () => modelRequest([{ role: 'user', content: 'Weather?' }], { tools: [weatherTool] });
const paris = { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } };

describe('Anthropic wire shapes', () => {
  it('keeps thinking and redacted_thinking blocks in providerData (not in the text), and skips server tool blocks, without streaming', async () => {
    const server = await serve([
      {
        type: 'raw',
        json: message(
          [
            thinking,
            redacted,
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Checking.', citations: null },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
          'tool_use',
          { cache_read_input_tokens: 50, cache_creation_input_tokens: 10 },
        ),
      },
    ]);
    expect(await model(server.baseURL).generate(ask())).toEqual({
      content: 'Checking.',
      toolCalls: [paris],
      usage: { inputTokens: 160, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 10 },
      finishReason: 'tool_calls',
      providerData: { anthropic: { model: 'claude-test', stopReason: 'tool_use', thinking: [thinking, redacted] } },
    });
  });

  it('streams only answer text: thinking and signature deltas build the thinking blocks of providerData; ping and server tool input deltas are skipped; usage is cumulative', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: [
          start({ cache_read_input_tokens: 50 }),
          block(0, { type: 'thinking', thinking: '', signature: '' }),
          { type: 'ping' },
          delta(0, { type: 'thinking_delta', thinking: 'Let me think' }),
          delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM' }),
          stop(0),
          block(1, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' }),
          stop(1),
          block(2, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
          delta(2, { type: 'input_json_delta', partial_json: '{"query":"weather"}' }),
          stop(2),
          block(3, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }),
          stop(3),
          block(4, { type: 'text', text: '' }),
          delta(4, { type: 'text_delta', text: 'Sunny' }),
          delta(4, {
            type: 'citations_delta',
            citation: {
              type: 'web_search_result_location',
              url: 'https://x',
              title: 'x',
              cited_text: 'x',
              encrypted_index: 'x',
            },
          }),
          delta(4, { type: 'text_delta', text: ' today.' }),
          stop(4),
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 20 },
          },
          { type: 'ping' },
          {
            type: 'message_delta',
            delta: { stop_reason: null, stop_sequence: null },
            usage: { input_tokens: null, cache_read_input_tokens: null, output_tokens: 41 },
          },
          { type: 'message_stop' },
        ],
      },
    ]);
    expect(await collect(model(server.baseURL).stream!(ask()))).toEqual([
      { type: 'text_delta', text: 'Sunny' },
      { type: 'text_delta', text: ' today.' },
      {
        type: 'response',
        response: {
          content: 'Sunny today.',
          usage: { inputTokens: 150, outputTokens: 41, cacheReadTokens: 50 },
          finishReason: 'stop',
          providerData: {
            anthropic: {
              model: 'claude-test',
              stopReason: 'end_turn',
              thinking: [{ type: 'thinking', thinking: 'Let me think', signature: 'EqQBCgIYAhIM' }, redacted],
            },
          },
        },
      },
    ]);
  });

  it('maps a tool_use with empty input {} (no deltas, or one empty delta) to {} arguments', async () => {
    const server = await serve([
      { type: 'raw', json: message([{ type: 'tool_use', id: 'toolu_t', name: 'get_time', input: {} }], 'tool_use') },
      {
        type: 'raw',
        events: [
          start(),
          block(0, { type: 'tool_use', id: 'toolu_t', name: 'get_time', input: {} }),
          delta(0, { type: 'input_json_delta', partial_json: '' }),
          stop(0),
          block(1, { type: 'tool_use', id: 'toolu_u', name: 'get_time', input: {} }),
          stop(1),
          ...end('tool_use'),
        ],
      },
    ]);
    expect((await model(server.baseURL).generate(ask())).toolCalls).toEqual([
      { id: 'toolu_t', name: 'get_time', arguments: {} },
    ]);
    const last = (await collect(model(server.baseURL).stream!(ask()))).at(-1);
    expect(last).toMatchObject({
      response: {
        toolCalls: [
          { id: 'toolu_t', name: 'get_time', arguments: {} },
          { id: 'toolu_u', name: 'get_time', arguments: {} },
        ],
      },
    });
  });

  it('takes the input of a streamed tool_use from content_block_start when no input_json_delta follows (compatible servers)', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: [
          start(),
          block(0, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }),
          stop(0),
          ...end('tool_use'),
        ],
      },
    ]);
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      response: { toolCalls: [paris] },
    });
  });
});

describe('Anthropic stop reasons', () => {
  it('maps every stop_reason to a finishReason and keeps the raw one in providerData', async () => {
    const table: [string, string][] = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['model_context_window_exceeded', 'length'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'other'],
      ['something_new', 'other'],
    ];
    const server = await serve(
      table.map(([reason]) => ({ type: 'raw' as const, json: message([{ type: 'text', text: 'x' }], reason) })),
    );
    for (const [stopReason, finishReason] of table) {
      expect(await model(server.baseURL).generate(ask())).toMatchObject({
        finishReason,
        providerData: { anthropic: { model: 'claude-test', stopReason } },
      });
    }
  });

  it('never hands on a tool call cut by max_tokens: a non-retryable bad_request naming the call, streamed or not', async () => {
    const cut = { id: 'toolu_1', name: 'get_weather', arguments: '{"city": "Par' };
    const server = await serve([
      { type: 'response', response: { content: 'Let me check.', toolCalls: [cut] }, stopReason: 'max_tokens' },
      { type: 'response', response: { content: '', toolCalls: [cut] }, stopReason: 'max_tokens' },
    ]);
    const errors = [
      await rejection(model(server.baseURL).generate(ask())),
      await rejection(collect(model(server.baseURL).stream!(ask()))),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        code: 'bad_request',
        retryable: false,
        message:
          'anthropic request failed: the output token limit (stop_reason: max_tokens) cut the answer in the middle of a tool call (get_weather); the call was not run. Raise maxTokens (thinking spends output tokens too), or ask for smaller tool arguments.',
      });
    }
  });

  it('keeps the text of max_tokens, refusal and pause_turn answers, with and without streaming', async () => {
    const server = await serve([
      { type: 'raw', json: message([thinking, { type: 'text', text: 'The answer is lo' }], 'max_tokens') },
      {
        type: 'raw',
        events: [
          start(),
          block(0, { type: 'text', text: '' }),
          delta(0, { type: 'text_delta', text: 'I will not' }),
          stop(0),
          ...end('refusal'),
        ],
      },
      { type: 'raw', json: message([{ type: 'text', text: 'Searching...' }], 'pause_turn') },
    ]);
    expect(await model(server.baseURL).generate(ask())).toMatchObject({
      content: 'The answer is lo',
      finishReason: 'length',
    });
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      response: { content: 'I will not', finishReason: 'content_filter' },
    });
    expect(await model(server.baseURL).generate(ask())).toMatchObject({
      content: 'Searching...',
      finishReason: 'other',
      providerData: { anthropic: { stopReason: 'pause_turn' } },
    });
  });

  it('fails with a non-retryable bad_request naming max_tokens when thinking used every output token', async () => {
    const server = await serve([
      { type: 'raw', json: message([thinking], 'max_tokens') },
      {
        type: 'raw',
        events: [
          start(),
          block(0, { type: 'thinking', thinking: '', signature: '' }),
          delta(0, { type: 'thinking_delta', thinking: 'Hmm' }),
          stop(0),
          ...end('max_tokens'),
        ],
      },
    ]);
    for (const call of [
      () => model(server.baseURL).generate(ask()),
      () => collect(model(server.baseURL).stream!(ask())),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        code: 'bad_request',
        retryable: false,
        message:
          'anthropic request failed: the answer was cut off by the output token limit (stop_reason: max_tokens) before any text or tool call. Raise maxTokens (thinking spends output tokens too).',
      });
    }
  });

  it('fails with a non-retryable bad_request when a refusal left nothing', async () => {
    const server = await serve([{ type: 'raw', json: message([], 'refusal') }]);
    expect(await rejection(model(server.baseURL).generate(ask()))).toMatchObject({
      code: 'bad_request',
      retryable: false,
      message:
        'anthropic request failed: the model declined to answer (stop_reason: refusal) before any text or tool call. Rephrase the request; retrying it unchanged will likely be refused again.',
    });
  });
});

describe('Anthropic request bodies', () => {
  it('never sends what the API rejects: an empty error tool_result, or blank text blocks', async () => {
    const server = await serve([{ content: 'ok' }]);
    await model(server.baseURL).generate(
      modelRequest([
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '  ', toolCalls: [paris] },
        { role: 'tool', callId: 'toolu_1', name: 'get_weather', content: '', isError: true },
        { role: 'user', content: ' ' },
        { role: 'assistant', content: '\n' },
        { role: 'user', content: 'Again?' },
      ]),
    );
    expect(bodyOf(server).messages).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Tool failed with no output.', is_error: true },
          { type: 'text', text: 'Again?' },
        ],
      },
    ]);
  });
});
