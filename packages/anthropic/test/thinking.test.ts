import type { AssistantMessage, Message, ModelResponse } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic, MIN_THINKING_BUDGET } from '../src/index';
import { bodyOf, collect, modelRequest, serve, weatherTool } from './helpers';

/** Thinking blocks as the Messages API returns them (docs.anthropic.com, extended thinking), with signatures. */
const thinkingBlock = {
  type: 'thinking',
  thinking: 'The user wants the weather in Paris. I should call get_weather.',
  signature: 'EqQBCgIYAhIMzvq8bE1ZtNHPWJmSGgxlB1w0mHXf7Z8aKQ0iMOk2',
};
const redactedBlock = {
  type: 'redacted_thinking',
  data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
};

function message(content: unknown[], stop_reason: string) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason,
    stop_sequence: null,
    usage: { input_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 30 },
  };
}

const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } };

/** SSE events of the same answer, streamed the way the API streams thinking (thinking deltas, then the signature). */
const streamedEvents = [
  { type: 'message_start', message: { ...message([], 'tool_use'), stop_reason: null } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'The user wants the weather in Paris. ' },
  },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'I should call get_weather.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: thinkingBlock.signature } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: redactedBlock },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { ...toolUse, input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city": "Paris"}' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: 'message_stop' },
];

/** The assistant message the loop appends for a response: its text, calls and provider data. */
function assistantOf(response: ModelResponse): AssistantMessage {
  return {
    role: 'assistant',
    content: response.content,
    ...(response.toolCalls ? { toolCalls: response.toolCalls } : {}),
    ...(response.providerData === undefined ? {} : { providerData: response.providerData }),
  };
}

const question: Message = { role: 'user', content: 'Weather in Paris?' };
const result = (callId = 'toolu_1'): Message => ({
  role: 'tool',
  callId,
  name: 'get_weather',
  content: 'Sunny, 21 C',
  isError: false,
});

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('anthropic extended thinking: options', () => {
  it('refuses a budget at or above maxTokens, below the API minimum, or not a number', () => {
    expect(configError(() => anthropic({ model: 'm', apiKey: 'k', thinking: { budgetTokens: 4096 } }))).toBe(
      'anthropic: thinking.budgetTokens (4096) must be below maxTokens (4096): thinking counts against the output limit. Raise maxTokens or lower the budget.',
    );
    expect(
      configError(() => anthropic({ model: 'm', apiKey: 'k', maxTokens: 2000, thinking: { budgetTokens: 3000 } })),
    ).toContain('thinking.budgetTokens (3000) must be below maxTokens (2000)');
    expect(configError(() => anthropic({ model: 'm', apiKey: 'k', thinking: { budgetTokens: 512 } }))).toBe(
      `anthropic: thinking.budgetTokens must be an integer of at least ${MIN_THINKING_BUDGET}, got number 512.`,
    );
    expect(
      configError(() => anthropic({ model: 'm', apiKey: 'k', thinking: { budgetTokens: Number.NaN } as never })),
    ).toContain('thinking.budgetTokens must be an integer');
    expect(configError(() => anthropic({ model: 'm', apiKey: 'k', thinking: 2048 as never }))).toBe(
      'anthropic: thinking must be an object like { budgetTokens: 2048 }, got number 2048.',
    );
    expect(configError(() => anthropic({ model: 'm', apiKey: 'k', promptCache: 'yes' as never }))).toContain(
      'promptCache must be true or false',
    );
  });
});

describe.each(['generate', 'stream'] as const)('anthropic extended thinking round trip (%s)', (mode) => {
  async function call(model: ReturnType<typeof anthropic>, messages: Message[]): Promise<ModelResponse> {
    const request = modelRequest(messages, { tools: [weatherTool] });
    if (mode === 'generate') return model.generate(request);
    const parts = await collect(model.stream!(request));
    const last = parts.at(-1);
    if (last?.type !== 'response') throw new Error('no response part');
    return last.response;
  }

  it('sends the thinking budget, keeps the blocks in providerData and sends them back byte-for-byte with the tool result', async () => {
    const first =
      mode === 'generate'
        ? { type: 'raw' as const, json: message([thinkingBlock, redactedBlock, toolUse], 'tool_use') }
        : { type: 'raw' as const, events: streamedEvents };
    const server = await serve([first, { content: 'Sunny in Paris.' }]);
    const model = anthropic({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: server.baseURL,
      maxTokens: 8000,
      thinking: { budgetTokens: 2048 },
      promptCache: false,
    });

    const response = await call(model, [question]);
    expect(response).toMatchObject({
      content: '',
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      finishReason: 'tool_calls',
      providerData: {
        anthropic: { model: 'claude-test', stopReason: 'tool_use', thinking: [thinkingBlock, redactedBlock] },
      },
    });
    await call(model, [question, assistantOf(response), result()]);

    expect(bodyOf(server, 0)).toMatchObject({ max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 2048 } });
    const second = bodyOf(server, 1);
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const assistantTurn = (second.messages as { role: string; content: unknown[] }[])[1];
    // Byte-for-byte: the blocks go back exactly as the API sent them, first, before the tool_use.
    expect(JSON.stringify(assistantTurn?.content[0])).toBe(JSON.stringify(thinkingBlock));
    expect(JSON.stringify(assistantTurn?.content[1])).toBe(JSON.stringify(redactedBlock));
    expect(assistantTurn).toEqual({ role: 'assistant', content: [thinkingBlock, redactedBlock, toolUse] });
  });

  it("ignores another model's or another provider's data, and keeps thinking off for a tool loop begun without it", async () => {
    const server = await serve([{ content: 'Sunny.' }, { content: 'Sunny.' }]);
    const model = anthropic({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: server.baseURL,
      thinking: { budgetTokens: 2048 },
      promptCache: false,
    });
    const call = { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } };
    const otherModel: AssistantMessage = {
      role: 'assistant',
      content: '',
      toolCalls: [call],
      providerData: { anthropic: { model: 'claude-other', stopReason: 'tool_use', thinking: [thinkingBlock] } },
    };
    const otherProvider: AssistantMessage = {
      role: 'assistant',
      content: '',
      toolCalls: [call],
      providerData: {
        openai: { model: 'claude-test', api: 'responses', reasoning: [{ type: 'reasoning', id: 'rs_1' }] },
      },
    };

    await (mode === 'generate'
      ? model.generate
      : (r: Parameters<typeof model.generate>[0]) => collect(model.stream!(r)))(
      modelRequest([question, otherModel, result()], { tools: [weatherTool] }),
    );
    await (mode === 'generate'
      ? model.generate
      : (r: Parameters<typeof model.generate>[0]) => collect(model.stream!(r)))(
      modelRequest(
        [
          question,
          otherProvider,
          result(),
          { role: 'assistant', content: 'Sunny.' },
          { role: 'user', content: 'Thanks' },
        ],
        {
          tools: [weatherTool],
        },
      ),
    );

    const first = bodyOf(server, 0);
    expect(first.thinking).toBeUndefined();
    expect((first.messages as unknown[])[1]).toEqual({ role: 'assistant', content: [toolUse] });
    const second = bodyOf(server, 1);
    // A new user turn: thinking is back on; the foreign data never reaches the wire.
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(JSON.stringify(second)).not.toContain('reasoning');
    expect((second.messages as unknown[])[1]).toEqual({ role: 'assistant', content: [toolUse] });
  });
});
