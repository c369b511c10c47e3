import type { Message, ToolDefinition } from '@bridle/protocol';

import { type FakeProviderScript, type FakeProviderServer, fakeAnthropicServer } from '@bridle/testing';
import { afterEach } from 'vitest';

export { collectStream as collect, modelRequest, rejection } from '@bridle/testing';

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A fake Anthropic server closed after the test. */
export async function serve(script: FakeProviderScript): Promise<FakeProviderServer> {
  const server = await fakeAnthropicServer(script);
  servers.push(server);
  return server;
}

export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export const timeTool: ToolDefinition = {
  name: 'get_time',
  description: 'Current time',
  parameters: { type: 'object', properties: {} },
};

export const roundTripTranscript: Message[] = [
  { role: 'user', content: 'Weather in Paris and the time?' },
  {
    role: 'assistant',
    content: 'Checking.',
    toolCalls: [
      { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_2', name: 'get_time', arguments: {} },
    ],
  },
  { role: 'tool', callId: 'call_1', name: 'get_weather', content: 'Sunny, 21 C', isError: false },
  { role: 'tool', callId: 'call_2', name: 'get_time', content: 'clock unavailable', isError: true },
];

/** Resolves once `condition` holds (checked every few milliseconds). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The parsed body of the server's `index`-th request (throws when there is none). */
export function bodyOf(server: FakeProviderServer, index = 0): Record<string, unknown> {
  const request = server.requests[index];
  if (!request) throw new Error(`the server received no request ${index + 1}`);
  return request.body as Record<string, unknown>;
}
