import { anthropic } from '@bridle/anthropic';
import { openai } from '@bridle/openai';
import type { Message, ModelResponse, ToolDefinition } from '@bridle/protocol';
import { type FakeProviderServer, fakeAnthropicServer, fakeOpenAIServer, modelRequest } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

function assistantOf(response: ModelResponse): Message {
  return {
    role: 'assistant',
    content: response.content,
    ...(response.toolCalls ? { toolCalls: response.toolCalls } : {}),
    ...(response.providerData === undefined ? {} : { providerData: response.providerData }),
  };
}

describe('a transcript moves between providers without leaking provider fields', () => {
  it('Anthropic (thinking) -> OpenAI Responses (reasoning) -> Anthropic', async () => {
    const claudeServer = await fakeAnthropicServer([
      {
        type: 'response',
        response: { content: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
        reasoning: [{ text: 'Paris weather needed.', signature: 'sig-claude' }],
      },
      { content: 'Done.' },
    ]);
    const gptServer = await fakeOpenAIServer([
      {
        type: 'response',
        response: { content: '', toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        reasoning: [{ text: 'Now Oslo.', signature: 'enc-gpt' }],
      },
    ]);
    servers.push(claudeServer, gptServer);
    const claude = anthropic({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: claudeServer.url,
      maxTokens: 4096,
      thinking: { budgetTokens: 1024 },
    });
    const gpt = openai({ model: 'gpt-5-mini', apiKey: 'k', baseURL: gptServer.baseURL, api: 'responses' });

    const messages: Message[] = [{ role: 'user', content: 'Weather in Paris, then Oslo?' }];
    const first = await claude.generate(modelRequest(messages, { tools: [weather] }));
    messages.push(assistantOf(first), {
      role: 'tool',
      callId: 'toolu_1',
      name: 'get_weather',
      content: 'Sunny',
      isError: false,
    });
    const second = await gpt.generate(modelRequest(messages, { tools: [weather] }));
    messages.push(assistantOf(second), {
      role: 'tool',
      callId: 'call_2',
      name: 'get_weather',
      content: 'Snow',
      isError: false,
    });
    await claude.generate(modelRequest(messages, { tools: [weather] }));

    const gptBody = JSON.stringify(gptServer.requests[0]?.body);
    expect(gptBody).not.toContain('sig-claude');
    expect(gptBody).not.toContain('thinking');
    expect(gptBody).not.toContain('providerData');
    const claudeBody = claudeServer.requests[1]?.body as {
      messages: { role: string; content: unknown }[];
      thinking?: unknown;
    };
    const text = JSON.stringify(claudeBody);
    expect(text).not.toContain('enc-gpt');
    expect(text).not.toContain('rs_fake');
    expect(text).not.toContain('providerData');
    // Claude's own thinking block goes back to Claude unchanged; the OpenAI turn is plain tool_use.
    expect(claudeBody.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Paris weather needed.', signature: 'sig-claude' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(claudeBody.messages[3]?.content).toEqual([
      { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    // That last turn was made without thinking, so this request of the same tool loop keeps thinking off.
    expect(claudeBody.thinking).toBeUndefined();
  });
});
