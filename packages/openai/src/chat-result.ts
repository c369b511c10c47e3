import type { ModelResponse, Usage } from '@bridle/protocol';
import type { ChatCompletion } from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { type ChatToolCallPiece, chatMessageToolCalls } from './chat-tool-calls';
import { checkStopReason } from './check-stop-reason';
import { providerError } from './map-openai-error';

/** Chat usage as Bridle usage (undefined when the server sent none). */
export function fromChatUsage(usage: CompletionUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
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

/** A Chat Completions response (its first choice) as a `ModelResponse`. */
export function fromChatResult(completion: ChatCompletion, provider: string): ModelResponse {
  const choice = completion.choices?.[0];
  if (!choice) throw providerError(provider, 'server', 'the chat completion has no choices');
  const message = choice.message;
  const response: ModelResponse = { content: chatText(message.content, message.refusal) };
  const toolCalls = chatMessageToolCalls((message.tool_calls ?? []) as ChatToolCallPiece[]);
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  const usage = fromChatUsage(completion.usage);
  if (usage) response.usage = usage;
  checkStopReason(choice.finish_reason, `finish_reason: ${choice.finish_reason}`, response, provider);
  return response;
}
