import type { ModelResponse, ModelStreamPart, ToolCall, Usage } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { codeForErrorType, providerError } from './map-openai-error';
import { checkIncomplete, failedResponseError, fromResponsesUsage } from './responses-result';
import { parseToolArguments } from './tool-arguments';

interface PendingCall {
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
}

/**
 * Reads a Responses API event stream: yields each `response.output_text.delta` as a text delta, assembles function
 * calls from their argument deltas by item id (the `.done` events are authoritative), and ends with the response
 * once `response.completed` (or `response.incomplete`) arrives. A stream `error` event or `response.failed` throws
 * the matching `ProviderError`; a stream that stops before its end throws a `network` one; an aborted signal
 * rejects with its reason (the SDK ends the stream silently on abort).
 */
export async function* readResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  signal: AbortSignal,
  provider: string,
): AsyncGenerator<ModelStreamPart> {
  let content = '';
  const calls = new Map<string, PendingCall>();
  let usage: Usage | undefined;
  let final: Response | undefined;

  for await (const event of events) {
    if (signal.aborted) throw abortReason(signal);
    switch (event.type) {
      case 'response.output_text.delta':
        content += event.delta;
        yield { type: 'text_delta', text: event.delta };
        break;
      case 'response.refusal.delta':
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

  const toolCalls: ToolCall[] = [...calls.values()]
    .sort((a, b) => a.outputIndex - b.outputIndex)
    .map((call) => ({ id: call.callId, name: call.name, arguments: parseToolArguments(call.arguments) }));
  const response: ModelResponse = { content };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  if (usage) response.usage = usage;
  checkIncomplete(final, response, provider);
  yield { type: 'response', response };
}
