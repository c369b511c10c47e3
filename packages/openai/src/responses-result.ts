import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import type { Response, ResponseUsage } from 'openai/resources/responses/responses';
import { checkStopReason } from './check-stop-reason';
import { codeForErrorType, providerError } from './map-openai-error';
import { parseToolArguments } from './tool-arguments';

/** Responses usage as Bridle usage (undefined when the server sent none). */
export function fromResponsesUsage(usage: ResponseUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
}

/** The `ProviderError` for a response with status `failed` (its error code decides; without one, `server`). */
export function failedResponseError(response: Response, provider: string): Error {
  const error = response.error;
  const detail = error ? `${error.code}: ${error.message}` : 'the response failed without an error object';
  return providerError(provider, codeForErrorType(error?.code, detail), detail);
}

/** Applies `incomplete_details.reason` of an incomplete response (see {@link checkStopReason}). */
export function checkIncomplete(response: Response, result: ModelResponse, provider: string): void {
  if (response.status !== 'incomplete') return;
  const reason = response.incomplete_details?.reason;
  checkStopReason(reason, `incomplete: ${reason ?? 'no reason given'}`, result, provider);
}

/**
 * A complete Responses API response as a `ModelResponse`: the text of its message items (refusals included),
 * its `function_call` items as tool calls, its usage. A `failed` response throws the matching `ProviderError`;
 * reasoning and other items are skipped; an incomplete one keeps its text (see {@link checkStopReason}).
 */
export function fromResponsesResult(response: Response, provider: string): ModelResponse {
  if (response.status === 'failed') throw failedResponseError(response, provider);
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) content += part.type === 'output_text' ? part.text : part.refusal;
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: parseToolArguments(item.arguments) });
    }
  }
  const result: ModelResponse = { content };
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  const usage = fromResponsesUsage(response.usage);
  if (usage) result.usage = usage;
  checkIncomplete(response, result, provider);
  return result;
}
