import type { ModelStreamPart, ToolCall, Usage } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import { parseToolArguments, providerError } from '@bridle/protocol/internal';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { codeForErrorType } from './map-openai-error';
import { isReplayableReasoning, type ReasoningItemData } from './openai-provider-data';
import {
  failedResponseError,
  finishResponsesResult,
  fromResponsesUsage,
  messageText,
  type ResponsesParts,
} from './responses-result';

interface PendingCall {
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
}

/**
 * Tool calls from the streamed calls, plus any `function_call` item of the final response that the stream never
 * announced (some proxies send a call only inside `response.completed`), ordered by output index.
 */
function mergedToolCalls(calls: Map<string, PendingCall>, final: Response): ToolCall[] {
  const pending = [...calls.values()];
  const known = new Set(pending.map((call) => call.callId));
  (final.output ?? []).forEach((item, outputIndex) => {
    if (item.type !== 'function_call' || known.has(item.call_id)) return;
    known.add(item.call_id);
    pending.push({ outputIndex, callId: item.call_id, name: item.name, arguments: item.arguments ?? '' });
  });
  return pending
    .sort((a, b) => a.outputIndex - b.outputIndex)
    .map((call) => ({ id: call.callId, name: call.name, arguments: parseToolArguments(call.arguments) }));
}

/**
 * Reads a Responses API event stream: yields each `response.output_text.delta` (and refusal delta) as a text delta,
 * assembles function calls from their argument deltas by item id (the `.done` events are authoritative), keeps the
 * reasoning items that carry `encrypted_content`, and ends with the response once `response.completed` (or
 * `response.incomplete`) arrives. What only the final response holds is taken from it: function calls the stream
 * never announced, the answer text when no delta carried any (yielded then as one delta), reasoning items. A stream
 * `error` event or `response.failed` throws the matching `ProviderError`; a stream that stops before its end throws
 * a `network` one; an aborted signal rejects with its reason (the SDK ends the stream silently on abort).
 */
export async function* readResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  signal: AbortSignal,
  settings: { provider: string; model: string },
): AsyncGenerator<ModelStreamPart> {
  const { provider } = settings;
  let content = '';
  let refused = false;
  const calls = new Map<string, PendingCall>();
  const reasoning = new Map<string, ReasoningItemData>();
  let usage: Usage | undefined;
  let final: Response | undefined;

  for await (const event of events) {
    if (signal.aborted) throw abortReason(signal);
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        // Proxies have been seen sending `null` text: it is nothing, never the string "null".
        if (typeof event.delta !== 'string' || event.delta === '') break;
        if (event.type === 'response.refusal.delta') refused = true;
        content += event.delta;
        yield { type: 'text_delta', text: event.delta };
        break;
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (event.item.type === 'function_call' && event.item.id) {
          const known = calls.get(event.item.id);
          calls.set(event.item.id, {
            outputIndex: event.output_index,
            callId: event.item.call_id,
            name: event.item.name,
            // `added` carries empty arguments; keep what the deltas built unless `done` says otherwise.
            arguments:
              event.type === 'response.output_item.done'
                ? event.item.arguments
                : (known?.arguments ?? event.item.arguments),
          });
        } else if (event.type === 'response.output_item.done' && isReplayableReasoning(event.item)) {
          reasoning.set(String(event.item.id ?? reasoning.size), event.item);
        }
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(event.item_id);
        if (call) call.arguments += event.delta;
        break;
      }
      case 'response.function_call_arguments.done': {
        const call = calls.get(event.item_id);
        if (call) call.arguments = event.arguments;
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        usage = fromResponsesUsage(event.response.usage);
        final = event.response;
        break;
      case 'response.failed':
        throw failedResponseError(event.response, provider);
      case 'error':
        throw providerError(
          provider,
          codeForErrorType(event.code, event.message),
          `${event.code ?? 'error'}: ${event.message}`,
        );
    }
  }
  if (signal.aborted) throw abortReason(signal);
  if (!final) throw providerError(provider, 'network', 'the response stream ended before response.completed');

  if (content === '') {
    for (const item of final.output ?? []) {
      if (item.type !== 'message') continue;
      const text = messageText(item.content ?? []);
      content += text.text;
      refused ||= text.refused;
    }
    if (content !== '') yield { type: 'text_delta', text: content };
  }
  const parts: ResponsesParts = {
    content,
    toolCalls: mergedToolCalls(calls, final),
    refused,
    reasoning:
      reasoning.size > 0 ? [...reasoning.values()] : ((final.output ?? []) as unknown[]).filter(isReplayableReasoning),
  };
  if (usage) parts.usage = usage;
  yield { type: 'response', response: finishResponsesResult(parts, final, settings) };
}
