import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import { providerError } from './map-anthropic-error';

/** Anthropic usage as Bridle usage: input counts cache writes and reads too (Anthropic reports them apart). */
export function fromAnthropicUsage(usage: {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}): Usage {
  return {
    inputTokens:
      (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
    outputTokens: usage.output_tokens ?? 0,
  };
}

/**
 * Applies the stop reason. Every answer keeps what came back: `max_tokens` its truncated text (as Vercel AI SDK users
 * get it; `ModelResponse` has no finish reason to mark it with), and a tool call cut mid-input arrives as its raw
 * partial JSON, which the registry rejects so the model is told; `refusal` its text; `pause_turn` its text (Bridle
 * sends no server tools, so turns do not pause). When nothing usable came back (no text, no tool call), a run would
 * "complete" with an empty answer, so it throws instead: `model_context_window_exceeded` as `context_length`,
 * `max_tokens` (typically all spent on thinking) and `refusal` as non-retryable `bad_request` errors naming the reason.
 */
export function checkStopReason(stopReason: string | null | undefined, response: ModelResponse): void {
  if (response.content !== '' || response.toolCalls?.length) return;
  const label = `stop_reason: ${stopReason}`;
  if (stopReason === 'model_context_window_exceeded') {
    throw providerError('context_length', 'the model context window was exceeded before any output');
  }
  if (stopReason === 'max_tokens') {
    throw providerError(
      'bad_request',
      `the answer was cut off by the output token limit (${label}) before any text or tool call`,
      { advice: 'Raise maxTokens.' },
    );
  }
  if (stopReason === 'refusal') {
    throw providerError('bad_request', `the model declined to answer (${label}) before any text or tool call`, {
      advice: 'Rephrase the request; retrying it unchanged will likely be refused again.',
    });
  }
}

/** A Messages API response as a `ModelResponse`: text blocks joined, `tool_use` blocks as tool calls, usage. */
export function fromAnthropicMessage(message: Message): ModelResponse {
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  const response: ModelResponse = { content };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (message.usage) response.usage = fromAnthropicUsage(message.usage);
  checkStopReason(message.stop_reason, response);
  return response;
}
