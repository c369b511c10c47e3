import type { FinishReason } from '@bridle/protocol';

/** Chat Completions `finish_reason` as a `FinishReason`: `stop`, `length`, `content_filter` as named; `tool_calls` and the old `function_call` are `tool_calls`; anything else `other`. */
export function mapChatFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content_filter':
      return reason;
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

/**
 * A Responses API outcome as a `FinishReason`: a refusal part is `content_filter`; `completed` is `tool_calls` when
 * the answer calls tools, else `stop`; `incomplete` is `length` for `max_output_tokens`, `content_filter` for
 * `content_filter`, else `other`; any other status `other`.
 */
export function mapResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  options: { toolCalls: boolean; refused: boolean },
): FinishReason {
  if (options.refused) return 'content_filter';
  if (status === 'completed') return options.toolCalls ? 'tool_calls' : 'stop';
  if (status === 'incomplete') {
    if (incompleteReason === 'max_output_tokens') return 'length';
    if (incompleteReason === 'content_filter') return 'content_filter';
  }
  return 'other';
}
