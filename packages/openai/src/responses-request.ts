import type { ModelRequest } from '@bridle/protocol';
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { extraBodyFields } from './extra-body-fields';
import { stringifyToolArguments, wireSchema } from './tool-arguments';

/** Settings shared by both APIs, already validated. */
export interface RequestSettings {
  model: string;
  /** `openai` for OpenAI's own API, `openai-compatible` for other servers. */
  provider?: string;
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: Record<string, unknown>;
}

/** Transcript to Responses `input` items: each message in order; tool calls and results as function items. */
export function toResponsesInput(messages: ModelRequest['messages']): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') input.push({ role: 'user', content: message.content });
    else if (message.role === 'tool') {
      input.push({ type: 'function_call_output', call_id: message.callId, output: message.content });
    } else {
      if (message.content !== '') input.push({ role: 'assistant', content: message.content });
      for (const call of message.toolCalls ?? []) {
        input.push({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: stringifyToolArguments(call.arguments),
        });
      }
    }
  }
  return input;
}

/** Tool definitions as Responses function tools (strict mode off: Bridle validates arguments itself). */
export function toResponsesTools(tools: ModelRequest['tools']): FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: wireSchema(tool.parameters),
    strict: false,
  }));
}

/**
 * The Responses API body for a request: stateless (`store: false`, the whole transcript every time), the system
 * prompt as `instructions`. `providerOptions` are merged in but cannot replace model, input, tools or instructions.
 */
export function toResponsesBody(request: ModelRequest, settings: RequestSettings): ResponseCreateParamsNonStreaming {
  const body: ResponseCreateParamsNonStreaming = {
    store: false,
    ...(settings.maxOutputTokens === undefined ? {} : { max_output_tokens: settings.maxOutputTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...extraBodyFields(settings.providerOptions),
    model: settings.model,
    input: toResponsesInput(request.messages),
  };
  if (request.system !== undefined && request.system !== '') body.instructions = request.system;
  if (request.tools.length > 0) body.tools = toResponsesTools(request.tools);
  return body;
}
