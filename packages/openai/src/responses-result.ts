import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import { parseToolArguments, providerError } from '@bridle/protocol/internal';
import type { Response, ResponseUsage } from 'openai/resources/responses/responses';
import { checkStopReason } from './check-stop-reason';
import { codeForErrorType } from './map-openai-error';
import { mapResponsesFinishReason } from './map-openai-finish-reason';
import { isReplayableReasoning, openaiProviderData, type ReasoningItemData } from './openai-provider-data';

/** Responses usage as Bridle usage, with cached input and reasoning output tokens when non-zero (undefined when the server sent none). */
export function fromResponsesUsage(usage: ResponseUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const result: Usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens ?? 0;
  if (cached > 0) result.cacheReadTokens = cached;
  if (reasoning > 0) result.reasoningTokens = reasoning;
  return result;
}

/** The `ProviderError` for a response with status `failed` (its error code decides; without one, `server`). */
export function failedResponseError(response: Response, provider: string): Error {
  const error = response.error;
  const detail = error ? `${error.code}: ${error.message}` : 'the response failed without an error object';
  return providerError(provider, codeForErrorType(error?.code, detail), detail);
}

/** What the Responses readers collected, before the finish reason and provider data are added. */
export interface ResponsesParts {
  content: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  refused: boolean;
  reasoning: ReasoningItemData[];
}

/**
 * Finishes a Responses answer: its finish reason, `providerData[provider]` (model, `status`, `incompleteReason`,
 * replayable reasoning items), then the stop-reason checks of an incomplete response (see {@link checkStopReason}).
 */
export function finishResponsesResult(
  parts: ResponsesParts,
  response: Pick<Response, 'status' | 'incomplete_details'>,
  settings: { provider: string; model: string },
): ModelResponse {
  const result: ModelResponse = { content: parts.content };
  if (parts.toolCalls.length > 0) result.toolCalls = parts.toolCalls;
  if (parts.usage) result.usage = parts.usage;
  const status = response.status ?? null;
  const incompleteReason = response.incomplete_details?.reason ?? null;
  result.finishReason = mapResponsesFinishReason(status, incompleteReason, {
    toolCalls: parts.toolCalls.length > 0,
    refused: parts.refused,
  });
  result.providerData = openaiProviderData(settings.provider, {
    model: settings.model,
    api: 'responses',
    status,
    incompleteReason,
    reasoning: parts.reasoning,
  });
  if (status === 'incomplete') {
    checkStopReason(
      incompleteReason,
      `incomplete: ${incompleteReason ?? 'no reason given'}`,
      result,
      settings.provider,
    );
  }
  return result;
}

/** The text of a message item's parts: `output_text` text (a `null` text, as some proxies send, is nothing) and refusals. */
export function messageText(parts: readonly unknown[]): { text: string; refused: boolean } {
  let text = '';
  let refused = false;
  for (const part of parts as { type?: unknown; text?: unknown; refusal?: unknown }[]) {
    if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
    else if (part?.type === 'refusal' && typeof part.refusal === 'string') {
      text += part.refusal;
      refused = true;
    }
  }
  return { text, refused };
}

/** The `function_call` items of an output list as tool calls, in order. */
export function outputToolCalls(output: Response['output'] | null | undefined): ToolCall[] {
  return (output ?? [])
    .filter((item) => item.type === 'function_call')
    .map((item) => ({ id: item.call_id, name: item.name, arguments: parseToolArguments(item.arguments) }));
}

/**
 * A complete Responses API response as a `ModelResponse`: the text of its message items (refusals included, which
 * make the finish reason `content_filter`), its `function_call` items as tool calls, its usage, its finish reason,
 * and `providerData` with the reasoning items that carry `encrypted_content` (sent back on the next request). A
 * `failed` response throws the matching `ProviderError`; other items are skipped; an incomplete one keeps its text
 * (see {@link checkStopReason}).
 */
export function fromResponsesResult(response: Response, settings: { provider: string; model: string }): ModelResponse {
  if (response.status === 'failed') throw failedResponseError(response, settings.provider);
  const parts: ResponsesParts = {
    content: '',
    toolCalls: outputToolCalls(response.output),
    refused: false,
    reasoning: [],
  };
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      const { text, refused } = messageText(item.content ?? []);
      parts.content += text;
      parts.refused ||= refused;
    } else if (isReplayableReasoning(item)) {
      parts.reasoning.push(item);
    }
  }
  const usage = fromResponsesUsage(response.usage);
  if (usage) parts.usage = usage;
  return finishResponsesResult(parts, response, settings);
}
