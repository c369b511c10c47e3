import type { FinishReason } from '@bridle/protocol';

/**
 * Anthropic's `stop_reason` as a Bridle `FinishReason`: `end_turn` and `stop_sequence` are `stop`; `max_tokens` and
 * `model_context_window_exceeded` are `length`; `tool_use` is `tool_calls`; `refusal` is `content_filter`;
 * `pause_turn`, anything else and a missing reason are `other`.
 */
export function mapAnthropicStopReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
