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
 * Applies the stop reason. `model_context_window_exceeded` with nothing usable is a `context_length` error; every
 * other reason keeps what came back (`max_tokens`: truncated text, and a cut tool call arrives as its raw partial
 * JSON, which the registry rejects so the model is told; `refusal`: the text, possibly empty).
 */
export function checkStopReason(stopReason: string | null | undefined, response: ModelResponse): void {
  if (stopReason === 'model_context_window_exceeded' && response.content === '' && !response.toolCalls) {
    throw providerError('context_length', 'the model context window was exceeded before any output');
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
