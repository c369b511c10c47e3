import type { ModelRequest } from '@bridle/protocol';
import { wireSchema } from '@bridle/protocol/internal';
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { extraBodyFields } from './extra-body-fields';
import { reasoningItemsFor } from './openai-provider-data';
import { stringifyToolArguments } from './stringify-tool-arguments';

/** Settings shared by both APIs, already validated. */
export interface RequestSettings {
  model: string;
  /** `openai` for OpenAI's own API, `openai-compatible` for other servers. */
  provider?: string;
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: Record<string, unknown>;
  /** Reasoning settings: `reasoning` (Responses) / `reasoning_effort` (Chat). */
  reasoning?: { effort?: string; summary?: string };
  /** `prompt_cache_key`: requests that share it are routed to the same prompt cache. */
  promptCacheKey?: string;
}

/**
 * True when the Responses body asks for `reasoning.encrypted_content`: `reasoning` options were given, or the model
 * name is one of OpenAI's reasoning families (o1, o3, o4, gpt-5 but not its `-chat` models, codex). Other models
 * refuse the include, so it is not sent to them.
 */
export function wantsEncryptedReasoning(settings: RequestSettings): boolean {
  if (settings.reasoning !== undefined) return true;
  return /^(o\d|gpt-5|codex)/i.test(settings.model) && !/-chat/i.test(settings.model);
}

/**
 * Transcript to Responses `input` items: each message in order; tool calls and results as function items. An
 * assistant turn made by this provider and model through the Responses API first gets back its reasoning items
 * (from `providerData`, unchanged, `encrypted_content` included), as stateless (`store: false`) reasoning needs.
 */
export function toResponsesInput(
  messages: ModelRequest['messages'],
  settings: Pick<RequestSettings, 'provider' | 'model'> = { model: '' },
): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') input.push({ role: 'user', content: message.content });
    else if (message.role === 'tool') {
      input.push({ type: 'function_call_output', call_id: message.callId, output: message.content });
    } else {
      const reasoning = reasoningItemsFor(message, settings.provider ?? 'openai', settings.model);
      input.push(...(reasoning as unknown as ResponseInputItem[]));
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
 * prompt as `instructions`, `reasoning` and `prompt_cache_key` when set, and `include:
 * ['reasoning.encrypted_content']` for reasoning models (see {@link wantsEncryptedReasoning}) so their reasoning can be
 * sent back. `providerOptions` are merged in but cannot replace model, input, tools or instructions.
 */
export function toResponsesBody(request: ModelRequest, settings: RequestSettings): ResponseCreateParamsNonStreaming {
  const body: ResponseCreateParamsNonStreaming = {
    store: false,
    ...(settings.maxOutputTokens === undefined ? {} : { max_output_tokens: settings.maxOutputTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.reasoning === undefined
      ? {}
      : { reasoning: settings.reasoning as ResponseCreateParamsNonStreaming['reasoning'] }),
    ...(wantsEncryptedReasoning(settings) ? { include: ['reasoning.encrypted_content' as const] } : {}),
    ...(settings.promptCacheKey === undefined ? {} : { prompt_cache_key: settings.promptCacheKey }),
    ...extraBodyFields(settings.providerOptions),
    model: settings.model,
    input: toResponsesInput(request.messages, settings),
  };
  if (request.system !== undefined && request.system !== '') body.instructions = request.system;
  if (request.tools.length > 0) body.tools = toResponsesTools(request.tools);
  return body;
}
