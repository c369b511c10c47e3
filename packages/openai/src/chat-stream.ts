import type { ModelResponse, ModelStreamPart, ToolCall, Usage } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import { callIdOr, fromChatUsage } from './chat-result';
import { providerError } from './map-openai-error';
import { parseToolArguments } from './tool-arguments';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reads a Chat Completions chunk stream: yields content deltas as text deltas, assembles tool calls from their
 * `tool_calls` deltas by `index` (deltas of several calls may interleave), takes usage from the final usage chunk,
 * and ends with the response. A stream that stops before a `finish_reason` throws a `network` ProviderError; an
 * aborted signal rejects with its reason (the SDK ends the stream silently on abort).
 */
export async function* readChatStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  signal: AbortSignal,
  provider: string,
): AsyncGenerator<ModelStreamPart> {
  let content = '';
  const calls = new Map<number, PendingCall>();
  let usage: Usage | undefined;
  let finished = false;

  for await (const chunk of chunks) {
    if (signal.aborted) throw abortReason(signal);
    usage = fromChatUsage(chunk.usage) ?? usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const text = choice.delta?.content ?? choice.delta?.refusal;
    if (text) {
      content += text;
      yield { type: 'text_delta', text };
    }
    for (const delta of choice.delta?.tool_calls ?? []) {
      const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
      if (delta.id) call.id = delta.id;
      // Names arrive whole (some servers repeat them on every delta), so they replace rather than append.
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
      calls.set(delta.index, call);
    }
    if (choice.finish_reason) finished = true;
  }
  if (signal.aborted) throw abortReason(signal);
  if (!finished) throw providerError(provider, 'network', 'the chat stream ended before a finish_reason');

  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({
      id: callIdOr(call.id, index),
      name: call.name,
      arguments: parseToolArguments(call.arguments),
    }));
  const response: ModelResponse = { content };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (usage) response.usage = usage;
  yield { type: 'response', response };
}
