import type { ModelResponse, ModelStreamPart, Usage } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import { providerError } from '@bridle/protocol/internal';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import { chatText, finishChatResult, fromChatUsage } from './chat-result';
import { ChatToolCallAssembler, type ChatToolCallPiece } from './chat-tool-calls';

/**
 * Reads a Chat Completions chunk stream: yields content (and refusal) deltas as text deltas, assembles tool calls
 * from their `tool_calls` deltas (see {@link ChatToolCallAssembler}), takes usage from whichever chunk carries it
 * (the final one with empty choices when `include_usage` is set), and ends with the response, its finish reason and
 * `providerData`. A stream that stops
 * before a `finish_reason` throws a `network` ProviderError; an aborted signal rejects with its reason (the SDK
 * ends the stream silently on abort).
 */
export async function* readChatStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  signal: AbortSignal,
  settings: { provider: string; model: string },
): AsyncGenerator<ModelStreamPart> {
  const { provider } = settings;
  let content = '';
  const calls = new ChatToolCallAssembler();
  let usage: Usage | undefined;
  let finishReason: string | undefined;

  for await (const chunk of chunks) {
    if (signal.aborted) throw abortReason(signal);
    usage = fromChatUsage(chunk.usage) ?? usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const text = chatText(choice.delta?.content, choice.delta?.refusal);
    if (text) {
      content += text;
      yield { type: 'text_delta', text };
    }
    for (const piece of choice.delta?.tool_calls ?? []) calls.add(piece as ChatToolCallPiece);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (signal.aborted) throw abortReason(signal);
  if (!finishReason) throw providerError(provider, 'network', 'the chat stream ended before a finish_reason');

  const toolCalls = calls.toolCalls();
  const response: ModelResponse = { content };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (usage) response.usage = usage;
  yield { type: 'response', response: finishChatResult(response, finishReason, settings) };
}
