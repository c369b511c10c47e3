import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelResponse, ModelStreamPart, ToolCall } from '@bridle/protocol';
import { abortReason } from '@bridle/protocol';
import { parseToolArguments, providerError } from '@bridle/protocol/internal';
import type { ThinkingBlockData } from './anthropic-provider-data';
import { type AnthropicUsageFields, finishAnthropicResponse, fromAnthropicUsage } from './anthropic-result';

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
  return parseToolArguments(toolUse.json);
}

/** Copies the usage numbers an event carries over what is known (stream usage is cumulative; nulls mean "unchanged"). */
function mergeUsage(
  known: AnthropicUsageFields,
  update: AnthropicUsageFields | null | undefined,
): AnthropicUsageFields {
  const merged = { ...known };
  for (const key of [
    'input_tokens',
    'output_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ] as const) {
    const value = update?.[key];
    if (typeof value === 'number') merged[key] = value;
  }
  return merged;
}

/**
 * Reads a Messages API event stream: yields `text_delta`s as they come, assembles each `tool_use` block from its
 * `input_json_delta`s and each thinking block from its `thinking_delta`s and `signature_delta` (by block index), and
 * ends with the response after `message_stop`, with its finish reason and the thinking blocks in `providerData`.
 * Thinking text is not yielded as answer text; server tool blocks, citations and `ping`s are skipped. A stream that
 * stops before `message_stop` throws a `network` ProviderError; an aborted signal rejects with its reason.
 */
export async function* readAnthropicStream(
  events: AsyncIterable<RawMessageStreamEvent>,
  signal: AbortSignal,
  model: string,
): AsyncGenerator<ModelStreamPart> {
  let content = '';
  const toolUses = new Map<number, PendingToolUse>();
  const thinking = new Map<number, ThinkingBlockData>();
  let usage: AnthropicUsageFields = {};
  let stopReason: string | null = null;
  let finished = false;

  for await (const event of events) {
    if (signal.aborted) throw abortReason(signal);
    switch (event.type) {
      case 'message_start':
        usage = mergeUsage(usage, event.message.usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use') {
          toolUses.set(event.index, { id: block.id, name: block.name, input: block.input, json: '' });
        } else if (block.type === 'thinking') {
          thinking.set(event.index, {
            type: 'thinking',
            thinking: block.thinking ?? '',
            signature: block.signature ?? '',
          });
        } else if (block.type === 'redacted_thinking') {
          thinking.set(event.index, { type: 'redacted_thinking', data: block.data });
        } else if (block.type === 'text' && block.text !== '') {
          content += block.text;
          yield { type: 'text_delta', text: block.text };
        }
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') {
          content += delta.text;
          yield { type: 'text_delta', text: delta.text };
        } else if (delta.type === 'input_json_delta') {
          const toolUse = toolUses.get(event.index);
          if (toolUse) toolUse.json += delta.partial_json;
        } else if (delta.type === 'thinking_delta' || delta.type === 'signature_delta') {
          const block = thinking.get(event.index);
          if (block?.type !== 'thinking') break;
          if (delta.type === 'thinking_delta') block.thinking = `${block.thinking}${delta.thinking}`;
          else block.signature = `${block.signature}${delta.signature}`;
        }
        break;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        usage = mergeUsage(usage, event.usage);
        break;
      case 'message_stop':
        finished = true;
        break;
    }
  }
  if (signal.aborted) throw abortReason(signal);
  if (!finished) throw providerError('anthropic', 'network', 'the message stream ended before message_stop');

  const toolCalls: ToolCall[] = [...toolUses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, toolUse]) => ({ id: toolUse.id, name: toolUse.name, arguments: toolUseArguments(toolUse) }));
  const response: ModelResponse = { content, usage: fromAnthropicUsage(usage) };
  if (toolCalls.length > 0) response.toolCalls = toolCalls;
  const blocks = [...thinking.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  yield { type: 'response', response: finishAnthropicResponse(response, stopReason, blocks, model) };
}
