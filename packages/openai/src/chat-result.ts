import type { ModelResponse, Usage } from '@bridle/protocol';
import { providerError } from '@bridle/protocol/internal';
import type { ChatCompletion } from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { type ChatToolCallPiece, chatMessageToolCalls } from './chat-tool-calls';
import { checkStopReason } from './check-stop-reason';
import { mapChatFinishReason } from './map-openai-finish-reason';
import { openaiProviderData } from './openai-provider-data';

/** Chat usage as Bridle usage, with cached input and reasoning output tokens when non-zero (undefined when the server sent none). */
export function fromChatUsage(usage: CompletionUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const result: Usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  if (cached > 0) result.cacheReadTokens = cached;
  if (reasoning > 0) result.reasoningTokens = reasoning;
  return result;
}

/** Finishes a Chat answer: its finish reason, `providerData[provider]` with the raw `finish_reason`, then the checks. */
export function finishChatResult(
  response: ModelResponse,
  finishReason: string | null | undefined,
  settings: { provider: string; model: string },
): ModelResponse {
  response.finishReason = mapChatFinishReason(finishReason);
  response.providerData = openaiProviderData(settings.provider, {
    model: settings.model,
    api: 'chat',
    finishReason: finishReason ?? null,
  });
  checkStopReason(finishReason, `finish_reason: ${finishReason}`, response, settings.provider);
  return response;
}

/**
 * The answer text of a message or delta: `content` (a string, or an array of parts whose `text` parts are joined and
 * whose `thinking` parts are skipped, as Mistral sends) followed by `refusal` (OpenAI's refusal text).
 */
export function chatText(content: unknown, refusal: unknown): string {
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    for (const part of content as { type?: unknown; text?: unknown }[]) {
      if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
    }
  }
  return typeof refusal === 'string' ? text + refusal : text;
}

/** A Chat Completions response (its first choice) as a `ModelResponse`, with its finish reason and `providerData`. */
export function fromChatResult(
  completion: ChatCompletion,
  settings: { provider: string; model: string },
): ModelResponse {
  const choice = completion.choices?.[0];
  if (!choice) throw providerError(settings.provider, 'server', 'the chat completion has no choices');
  const message = choice.message;
  const response: ModelResponse = { content: chatText(message.content, message.refusal) };
  const toolCalls = chatMessageToolCalls((message.tool_calls ?? []) as ChatToolCallPiece[]);
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  const usage = fromChatUsage(completion.usage);
  if (usage) response.usage = usage;
  return finishChatResult(response, choice.finish_reason, settings);
}
