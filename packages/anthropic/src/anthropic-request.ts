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

/**
 * Transcript to Messages API turns. Tool results become `tool_result` blocks (`is_error` when the result is an
 * error), and consecutive results (plus any user text right after them) are merged into one user turn, since
 * Anthropic wants all the results of a batch in the user turn that follows the `tool_use` turn.
 */
export function toAnthropicMessages(messages: ModelRequest['messages']): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      if (out.at(-1)?.role === 'user') appendToUserTurn(out, { type: 'text', text: message.content });
      else out.push({ role: 'user', content: message.content });
    } else if (message.role === 'tool') {
      appendToUserTurn(out, {
        type: 'tool_result',
        tool_use_id: message.callId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      });
    } else if (!message.toolCalls?.length) {
      // Anthropic rejects empty text; an empty answer without calls carries nothing, so it is left out.
      if (message.content !== '') out.push({ role: 'assistant', content: message.content });
    } else {
      const blocks: ContentBlockParam[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
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
