import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { AssistantMessage, ModelRequest } from '@bridle/protocol';
import { wireSchema } from '@bridle/protocol/internal';
import { addCacheBreakpoints } from './anthropic-cache';
import { thinkingBlocksFor } from './anthropic-provider-data';
import { toolInputObject } from './tool-input-object';

/** What the request builder needs from the options, already validated. */
export interface AnthropicRequestSettings {
  model: string;
  maxTokens: number;
  /** Extended thinking budget (`thinking: { type: 'enabled', budget_tokens }`); off when undefined. */
  thinkingBudget?: number;
  /** Place prompt-cache breakpoints (default on in `anthropic()`). */
  promptCache?: boolean;
}

/** Appends a block to the trailing user turn (turning string content into blocks), or starts a new user turn. */
function appendToUserTurn(out: MessageParam[], block: ContentBlockParam): void {
  const last = out.at(-1);
  if (last?.role !== 'user') {
    out.push({ role: 'user', content: [block] });
    return;
  }
  if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content }];
  last.content.push(block);
}

/** Sent for an error result without text: Anthropic rejects an empty `tool_result` whose `is_error` is true. */
export const EMPTY_ERROR_RESULT = 'Tool failed with no output.';

/** True for text Anthropic rejects as a text block: empty or whitespace only. */
function blank(text: string): boolean {
  return text.trim() === '';
}

/**
 * The blocks of an assistant turn: the thinking blocks this adapter recorded for `model` (unchanged, signatures
 * included, first, as the API returned them), then the text (unless blank), then one `tool_use` per call.
 */
function assistantBlocks(message: AssistantMessage, model: string): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = thinkingBlocksFor(message, model) as unknown as ContentBlockParam[];
  if (!blank(message.content)) blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInputObject(call.arguments) });
  }
  return blocks;
}

/**
 * Transcript to Messages API turns. Tool results become `tool_result` blocks (`is_error` when the result is an
 * error; an error without text says {@link EMPTY_ERROR_RESULT}, since Anthropic rejects it empty); blank text blocks
 * are left out (Anthropic rejects them), and consecutive results (plus any user text right after them) are merged
 * into one user turn, since Anthropic wants all the results of a batch in the user turn that follows the `tool_use`
 * turn. Assistant turns get back the thinking blocks recorded in their `providerData` for the same `model`; other
 * providers' data is ignored.
 */
export function toAnthropicMessages(messages: ModelRequest['messages'], model = ''): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      if (out.at(-1)?.role !== 'user') out.push({ role: 'user', content: message.content });
      else if (!blank(message.content)) appendToUserTurn(out, { type: 'text', text: message.content });
    } else if (message.role === 'tool') {
      const empty = message.isError && blank(message.content);
      appendToUserTurn(out, {
        type: 'tool_result',
        tool_use_id: message.callId,
        content: empty ? EMPTY_ERROR_RESULT : message.content,
        ...(message.isError ? { is_error: true } : {}),
      });
    } else {
      const blocks = assistantBlocks(message, model);
      // A blank answer without calls or thinking carries nothing (and Anthropic rejects blank text): left out.
      if (blocks.length === 0) continue;
      const plain = blocks.length === 1 && blocks[0]?.type === 'text';
      out.push({ role: 'assistant', content: plain ? message.content : blocks });
    }
  }
  return out;
}

/** Tool definitions as Anthropic tools (`input_schema` is the JSON Schema). */
export function toAnthropicTools(tools: ModelRequest['tools']): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: wireSchema(tool.parameters) as Tool['input_schema'],
  }));
}

/**
 * True when thinking must stay off for this request although it is configured: the request continues a tool loop
 * (the transcript ends with tool results) whose last assistant turn has no thinking block of this model (it was made
 * without thinking, or by another provider). The API wants one thinking configuration per assistant turn and
 * rejects a thinking request whose final assistant message does not start with a thinking block.
 */
function thinkingPausedForTurn(messages: ModelRequest['messages'], model: string): boolean {
  if (messages.at(-1)?.role !== 'tool') return false;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant') return thinkingBlocksFor(message, model).length === 0;
  }
  return false;
}

/**
 * The Messages API body: the system prompt apart as `system`, `max_tokens` always set (the API requires it),
 * `thinking` when a budget is set (see {@link thinkingPausedForTurn}), and prompt-cache breakpoints unless
 * `promptCache` is false (see {@link addCacheBreakpoints}).
 */
export function toAnthropicBody(
  request: ModelRequest,
  settings: AnthropicRequestSettings,
): MessageCreateParamsNonStreaming {
  const body: MessageCreateParamsNonStreaming = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    messages: toAnthropicMessages(request.messages, settings.model),
  };
  if (settings.thinkingBudget !== undefined && !thinkingPausedForTurn(request.messages, settings.model)) {
    body.thinking = { type: 'enabled', budget_tokens: settings.thinkingBudget };
  }
  if (request.system !== undefined && request.system !== '') body.system = request.system;
  if (request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
  if (settings.promptCache) addCacheBreakpoints(body);
  return body;
}
