import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import { providerError } from '@bridle/protocol/internal';
import { anthropicProviderData, isThinkingBlock, type ThinkingBlockData } from './anthropic-provider-data';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';

/** Anthropic's usage fields (any of them may be missing or null, as in stream events). */
export interface AnthropicUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * Anthropic usage as Bridle usage. Anthropic reports cache writes and reads apart from `input_tokens`; Bridle's
 * `inputTokens` counts every input token, so it is the sum of the three, and `cacheReadTokens` / `cacheWriteTokens`
 * (set when non-zero) say which part of it came from or went to the prompt cache.
 */
export function fromAnthropicUsage(usage: AnthropicUsageFields): Usage {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const result: Usage = {
    inputTokens: (usage.input_tokens ?? 0) + read + write,
    outputTokens: usage.output_tokens ?? 0,
  };
  if (read > 0) result.cacheReadTokens = read;
  if (write > 0) result.cacheWriteTokens = write;
  return result;
}

/**
 * Applies the stop reason, after the response was assembled. A tool call cut by the output limit (`max_tokens`) is
 * never handed on half-parsed: it throws a non-retryable `bad_request` ProviderError naming the call, so the run
 * ends with `model_error` instead of running a tool on truncated arguments. A truncated answer without tool calls
 * keeps its text, marked `finishReason: 'length'`. When nothing usable came back (no text, no tool call), a run would
 * "complete" with an empty answer, so it throws instead: `model_context_window_exceeded` as `context_length`,
 * `max_tokens` (typically all spent on thinking) and `refusal` as non-retryable `bad_request` errors naming the
 * reason. `pause_turn` keeps its text (Bridle sends no server tools, so turns do not pause).
 */
export function checkStopReason(stopReason: string | null | undefined, response: ModelResponse): void {
  const label = `stop_reason: ${stopReason}`;
  const calls = response.toolCalls ?? [];
  if (mapAnthropicStopReason(stopReason) === 'length' && calls.length > 0) {
    const names = calls.map((call) => call.name).join(', ');
    throw providerError(
      'anthropic',
      'bad_request',
      `the output token limit (${label}) cut the answer in the middle of a tool call (${names}); the call was not run`,
      { advice: 'Raise maxTokens (thinking spends output tokens too), or ask for smaller tool arguments.' },
    );
  }
  if (response.content !== '' || calls.length > 0) return;
  if (stopReason === 'model_context_window_exceeded') {
    throw providerError('anthropic', 'context_length', 'the model context window was exceeded before any output');
  }
  if (stopReason === 'max_tokens') {
    throw providerError(
      'anthropic',
      'bad_request',
      `the answer was cut off by the output token limit (${label}) before any text or tool call`,
      { advice: 'Raise maxTokens (thinking spends output tokens too).' },
    );
  }
  if (stopReason === 'refusal') {
    throw providerError(
      'anthropic',
      'bad_request',
      `the model declined to answer (${label}) before any text or tool call`,
      {
        advice: 'Rephrase the request; retrying it unchanged will likely be refused again.',
      },
    );
  }
}

/** Finishes a response: finish reason, provider data (raw stop reason, thinking blocks), then the stop-reason checks. */
export function finishAnthropicResponse(
  response: ModelResponse,
  stopReason: string | null,
  thinking: readonly ThinkingBlockData[],
  model: string,
): ModelResponse {
  response.finishReason = mapAnthropicStopReason(stopReason);
  response.providerData = anthropicProviderData(model, stopReason, thinking);
  checkStopReason(stopReason, response);
  return response;
}

/**
 * A Messages API response as a `ModelResponse`: text blocks joined, `tool_use` blocks as tool calls, usage, the
 * finish reason, and `providerData.anthropic` with the thinking blocks (kept unchanged for the next request).
 * `model` is the model name that was asked for.
 */
export function fromAnthropicMessage(message: Message, model: string): ModelResponse {
  let content = '';
  const toolCalls: ToolCall[] = [];
  const thinking: ThinkingBlockData[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
    else if (isThinkingBlock(block)) thinking.push(block);
  }
  const response: ModelResponse = { content };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (message.usage) response.usage = fromAnthropicUsage(message.usage);
  return finishAnthropicResponse(response, message.stop_reason ?? null, thinking, model);
}
