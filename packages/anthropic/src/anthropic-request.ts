import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelRequest } from '@bridle/protocol';
import { toolInputObject, wireSchema } from './tool-arguments';

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
 * Transcript to Messages API turns. Tool results become `tool_result` blocks (`is_error` when the result is an
 * error; an error without text says {@link EMPTY_ERROR_RESULT}, since Anthropic rejects it empty); blank text blocks
 * are left out (Anthropic rejects them), and consecutive results (plus any user text right after them) are merged
 * into one user turn, since Anthropic wants all the results of a batch in the user turn that follows the `tool_use`
 * turn.
 */
export function toAnthropicMessages(messages: ModelRequest['messages']): MessageParam[] {
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
    } else if (!message.toolCalls?.length) {
      // Anthropic rejects blank text blocks; a blank answer without calls carries nothing, so it is left out.
      if (!blank(message.content)) out.push({ role: 'assistant', content: message.content });
    } else {
      const blocks: ContentBlockParam[] = blank(message.content) ? [] : [{ type: 'text', text: message.content }];
      for (const call of message.toolCalls) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInputObject(call.arguments) });
      }
      out.push({ role: 'assistant', content: blocks });
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

/** The Messages API body: the system prompt apart as `system`, `max_tokens` always set (the API requires it). */
export function toAnthropicBody(
  request: ModelRequest,
  settings: { model: string; maxTokens: number },
): MessageCreateParamsNonStreaming {
  const body: MessageCreateParamsNonStreaming = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system !== undefined && request.system !== '') body.system = request.system;
  if (request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
  return body;
}
