import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import type { ChatCompletion } from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { providerError } from './map-openai-error';
import { parseToolArguments } from './tool-arguments';

/** Chat usage as Bridle usage (undefined when the server sent none). */
export function fromChatUsage(usage: CompletionUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
}

/** A tool call id, or a stable stand-in (`call_<index>`) for compatible servers that send none. */
export function callIdOr(id: string | null | undefined, index: number): string {
  return id ? id : `call_${index}`;
}

/** A Chat Completions response (its first choice) as a `ModelResponse`. */
export function fromChatResult(completion: ChatCompletion, provider: string): ModelResponse {
  const choice = completion.choices?.[0];
  if (!choice) throw providerError(provider, 'server', 'the chat completion has no choices');
  const message = choice.message;
  const response: ModelResponse = { content: message.content ?? message.refusal ?? '' };
  const toolCalls: ToolCall[] = [];
  (message.tool_calls ?? []).forEach((call, index) => {
    if (call.type !== 'function') return;
    toolCalls.push({
      id: callIdOr(call.id, index),
      name: call.function.name,
      arguments: parseToolArguments(call.function.arguments ?? ''),
    });
  });
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  const usage = fromChatUsage(completion.usage);
  if (usage) response.usage = usage;
  return response;
}
