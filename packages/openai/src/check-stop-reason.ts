import type { ModelResponse } from '@bridle/protocol';
import { providerError } from '@bridle/protocol/internal';

const CUT_ADVICE = 'Raise maxOutputTokens (reasoning models spend output tokens on reasoning first).';
const FILTER_ADVICE = 'Rephrase the request; retrying it unchanged will likely be filtered again.';

/**
 * Applies why the answer stopped (`incomplete_details.reason` of the Responses API, `finish_reason` of Chat
 * Completions). A tool call cut by the output limit is never handed on half-parsed: it throws a non-retryable
 * `bad_request` ProviderError naming the call (the run ends with `model_error`, no tool runs on truncated arguments).
 * A truncated or filtered answer without tool calls keeps what came back, marked by its `finishReason` (`length`,
 * `content_filter`). An answer that stopped for either reason before any text or tool call would end a run as
 * "completed" with an empty answer, so it throws a non-retryable `bad_request` ProviderError that names the limit
 * instead.
 *
 * @param label how the provider said it, e.g. `incomplete: max_output_tokens` or `finish_reason: length`
 */
export function checkStopReason(
  reason: string | null | undefined,
  label: string,
  response: ModelResponse,
  provider: string,
): void {
  const calls = response.toolCalls ?? [];
  const cut = reason === 'max_output_tokens' || reason === 'length';
  if (cut && calls.length > 0) {
    throw providerError(
      provider,
      'bad_request',
      `the output token limit (${label}) cut the answer in the middle of a tool call (${calls.map((call) => call.name).join(', ')}); the call was not run`,
      { advice: CUT_ADVICE },
    );
  }
  if (response.content !== '' || calls.length > 0) return;
  if (cut) {
    throw providerError(
      provider,
      'bad_request',
      `the answer was cut off by the output token limit (${label}) before any text or tool call`,
      { advice: CUT_ADVICE },
    );
  }
  if (reason === 'content_filter') {
    throw providerError(
      provider,
      'bad_request',
      `the provider's content filter stopped the answer (${label}) before any text or tool call`,
      { advice: FILTER_ADVICE },
    );
  }
}
