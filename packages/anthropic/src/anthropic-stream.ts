import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelResponse, ModelStreamPart, ToolCall, Usage } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import { checkStopReason, fromAnthropicUsage } from './anthropic-result';
import { providerError } from './map-anthropic-error';
import { parseToolInput } from './tool-arguments';

interface PendingToolUse {
  id: string;
  name: string;
  /** The input given in `content_block_start`: Anthropic sends `{}` there, some compatible servers the whole input. */
  input: unknown;
  json: string;
}

/** A streamed tool_use's arguments: its `input_json_delta` text, or the start input when no delta brought any. */
function toolUseArguments(toolUse: PendingToolUse): unknown {
  if (toolUse.json.trim() === '' && toolUse.input !== undefined && toolUse.input !== null) return toolUse.input;
  return parseToolInput(toolUse.json);
}

/**
 * Reads a Messages API event stream: yields `text_delta`s as they come, assembles each `tool_use` block from its
 * `input_json_delta`s (by block index), and ends with the response after `message_stop`. Thinking, redacted thinking
 * and server tool blocks (and their deltas), citations and `ping`s are skipped. A stream that stops
 * before `message_stop` throws a `network` ProviderError; an aborted signal rejects with its reason.
 */
export async function* readAnthropicStream(
  events: AsyncIterable<RawMessageStreamEvent>,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamPart> {
  let content = '';
  const toolUses = new Map<number, PendingToolUse>();
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: string | null = null;
  let finished = false;

  for await (const event of events) {
    if (signal.aborted) throw abortReason(signal);
    switch (event.type) {
      case 'message_start':
        usage = fromAnthropicUsage(event.message.usage);
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block;
          toolUses.set(event.index, { id, name, input, json: '' });
        } else if (event.content_block.type === 'text' && event.content_block.text !== '') {
          content += event.content_block.text;
          yield { type: 'text_delta', text: event.content_block.text };
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          content += event.delta.text;
          yield { type: 'text_delta', text: event.delta.text };
        } else if (event.delta.type === 'input_json_delta') {
          const toolUse = toolUses.get(event.index);
          if (toolUse) toolUse.json += event.delta.partial_json;
        }
        break;
      case 'message_delta': {
        stopReason = event.delta.stop_reason ?? stopReason;
        // message_delta usage is cumulative; input counts appear here only on some models.
        const delta = fromAnthropicUsage({ ...event.usage, input_tokens: event.usage.input_tokens ?? 0 });
        usage = { inputTokens: Math.max(usage.inputTokens, delta.inputTokens), outputTokens: delta.outputTokens };
        break;
      }
      case 'message_stop':
        finished = true;
        break;
    }
  }
  if (signal.aborted) throw abortReason(signal);
  if (!finished) throw providerError('network', 'the message stream ended before message_stop');

  const toolCalls: ToolCall[] = [...toolUses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, toolUse]) => ({ id: toolUse.id, name: toolUse.name, arguments: toolUseArguments(toolUse) }));
  const response: ModelResponse = { content, usage };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  checkStopReason(stopReason, response);
  yield { type: 'response', response };
}
