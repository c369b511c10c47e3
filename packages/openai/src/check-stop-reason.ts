import type { ModelResponse } from '@bridle/protocol';
import { providerError } from './map-openai-error';

const CUT_ADVICE = 'Raise maxOutputTokens (reasoning models spend output tokens on reasoning first).';
const FILTER_ADVICE = 'Rephrase the request; retrying it unchanged will likely be filtered again.';

/**
 * Applies why the answer stopped (`incomplete_details.reason` of the Responses API, `finish_reason` of Chat
 * Completions). A truncated or filtered answer keeps what came back: its text is the answer, as Vercel AI SDK users
 * get it (`ModelResponse` has no finish reason to mark it with). An answer that stopped for either reason before any
 * text or tool call would end a run as "completed" with an empty answer, so it throws a non-retryable `bad_request`
 * ProviderError that names the limit instead.
 *
 * @param label how the provider said it, e.g. `incomplete: max_output_tokens` or `finish_reason: length`
 */
export function checkStopReason(
  reason: string | null | undefined,
  label: string,
  response: ModelResponse,
  provider: string,
): void {
  if (response.content !== '' || response.toolCalls?.length) return;
  if (reason === 'max_output_tokens' || reason === 'length') {
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
