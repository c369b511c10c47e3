import type { ModelRequest } from '@bridle/protocol';
import { wireSchema } from '@bridle/protocol/internal';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import { extraBodyFields } from './extra-body-fields';
import type { RequestSettings } from './responses-request';
import { stringifyToolArguments } from './stringify-tool-arguments';

/** Transcript to Chat Completions messages: the system prompt first, tool calls as `tool_calls`, results as `tool`. */
export function toChatMessages(
  system: string | undefined,
  messages: ModelRequest['messages'],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== undefined && system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'tool')
      out.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
    else if (!message.toolCalls?.length) out.push({ role: 'assistant', content: message.content });
    else {
      out.push({
        role: 'assistant',
        // OpenAI sends `null` content beside tool calls; an empty string is not the same turn.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: stringifyToolArguments(call.arguments) },
        })),
      });
    }
  }
  return out;
}

/** Tool definitions as Chat Completions function tools (`strict` left unset, which is off, for compatible servers). */
export function toChatTools(tools: ModelRequest['tools']): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: wireSchema(tool.parameters) },
  }));
}

/**
 * The Chat Completions body for a request. The output cap is `max_completion_tokens` for OpenAI itself (its reasoning
 * models reject the deprecated `max_tokens`) and `max_tokens` for compatible servers (Ollama, vLLM, llama.cpp,
 * LM Studio), which know that one. `reasoning_effort` and `prompt_cache_key` are sent only when set; no `store`,
 * `parallel_tool_calls` or other OpenAI-only fields are sent. Chat has no reasoning items: `providerData` is not sent.
 * `providerOptions` cannot replace model, messages or tools.
 */
export function toChatBody(request: ModelRequest, settings: RequestSettings): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    ...(settings.maxOutputTokens === undefined
      ? {}
      : settings.provider === 'openai'
        ? { max_completion_tokens: settings.maxOutputTokens }
        : { max_tokens: settings.maxOutputTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.reasoning?.effort === undefined
      ? {}
      : { reasoning_effort: settings.reasoning.effort as ChatCompletionCreateParamsNonStreaming['reasoning_effort'] }),
    ...(settings.promptCacheKey === undefined ? {} : { prompt_cache_key: settings.promptCacheKey }),
    ...extraBodyFields(settings.providerOptions),
    model: settings.model,
    messages: toChatMessages(request.system, request.messages),
  };
  if (request.tools.length > 0) body.tools = toChatTools(request.tools);
  return body;
}
