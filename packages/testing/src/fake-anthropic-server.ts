import type { ModelResponse, ToolCall } from '@bridle/protocol';
import { type FakeCacheUsage, FakePromptCache } from './fake-prompt-cache';
import type { FakeOutcome, FakeProviderRequest, FakeProviderScript, FakeReasoning } from './fake-provider-script';
import {
  type FakeProviderServer,
  type SseEvent,
  startFakeProviderServer,
  type WireFormat,
} from './fake-provider-server';
import {
  argumentDeltas,
  argumentsText,
  fakeId,
  renderRaw,
  requestedModel,
  textDeltas,
  usageOf,
} from './fake-wire-helpers';

type Body = Record<string, unknown>;

const DEFAULT_ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

let requestCounter = 0;

/** A tool call's `input`: the arguments object; a string that parses is sent parsed, any other string verbatim. */
function inputOf(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}

/** Options of {@link fakeAnthropicServer}. */
export interface FakeAnthropicServerOptions {
  /**
   * Simulate Anthropic's prompt cache: each request's `cache_control` breakpoints write the prefix before them, and
   * later requests read what an earlier one wrote (see the docs). The usage then reports `input_tokens`,
   * `cache_creation_input_tokens` and `cache_read_input_tokens` from the simulation (tokens estimated at 4 characters
   * each), whatever the script says about input. Default false.
   */
  promptCache?: boolean;
}

/** A thinking or redacted_thinking block for a scripted reasoning step. */
function thinkingBlock(reasoning: FakeReasoning): Body {
  if (reasoning.redacted !== undefined) return { type: 'redacted_thinking', data: reasoning.redacted };
  return { type: 'thinking', thinking: reasoning.text ?? '', signature: reasoning.signature ?? '' };
}

function reasoningOf(outcome?: FakeOutcome): readonly FakeReasoning[] {
  return outcome?.type === 'response' ? (outcome.reasoning ?? []) : [];
}

function blocks(response: ModelResponse, outcome?: FakeOutcome): Body[] {
  const calls = response.toolCalls ?? [];
  const text = response.content !== '' || calls.length === 0 ? [{ type: 'text', text: response.content }] : [];
  return [
    ...reasoningOf(outcome).map(thinkingBlock),
    ...text,
    ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) })),
  ];
}

/** Anthropic's input usage fields: from the prompt cache simulation, else from the response's usage. */
function inputUsage(response: ModelResponse, request: FakeProviderRequest, cache?: FakeCacheUsage): Body {
  if (cache) {
    return {
      input_tokens: cache.uncached,
      cache_creation_input_tokens: cache.write,
      cache_read_input_tokens: cache.read,
    };
  }
  const usage = usageOf(response, request.body);
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

function stopReason(response: ModelResponse, outcome?: FakeOutcome): string {
  if (outcome?.type === 'response' && outcome.stopReason) return outcome.stopReason;
  return (response.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
}

function message(
  response: ModelResponse,
  request: FakeProviderRequest,
  callIndex: number,
  done: boolean,
  outcome?: FakeOutcome,
  cache?: FakeCacheUsage,
): Body {
  const usage = usageOf(response, request.body);
  return {
    id: fakeId('msg', callIndex),
    type: 'message',
    role: 'assistant',
    model: requestedModel(request.body),
    content: done ? blocks(response, outcome) : [],
    stop_reason: done ? stopReason(response, outcome) : null,
    stop_sequence: null,
    usage: {
      ...inputUsage(response, request, cache),
      output_tokens: done ? usage.outputTokens : 1,
      service_tier: 'standard',
    },
  };
}

function thinkingEvents(reasoning: readonly FakeReasoning[]): Body[] {
  const events: Body[] = [];
  reasoning.forEach((step, index) => {
    if (step.redacted !== undefined) {
      events.push({ type: 'content_block_start', index, content_block: thinkingBlock(step) });
    } else {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const thinking of textDeltas(step.text ?? '')) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      }
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: step.signature ?? '' },
      });
    }
    events.push({ type: 'content_block_stop', index });
  });
  return events;
}

function blockEvents(response: ModelResponse, reasoning: readonly FakeReasoning[] = []): Body[] {
  const events: Body[] = thinkingEvents(reasoning);
  const calls = response.toolCalls ?? [];
  let index = reasoning.length;
  if (response.content !== '' || calls.length === 0) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    events.push({ type: 'ping' });
    for (const text of textDeltas(response.content)) {
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    }
    events.push({ type: 'content_block_stop', index: index++ });
  }
  for (const call of calls) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const partial_json of ['', ...argumentDeltas(argumentsText(call))]) {
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    events.push({ type: 'content_block_stop', index: index++ });
  }
  return events;
}

function render(
  outcome: FakeOutcome,
  request: FakeProviderRequest,
  callIndex: number,
  cache?: FakeCacheUsage,
): { json: unknown } | { events: SseEvent[] } {
  if (outcome.type === 'raw') return renderRaw(outcome, (request.body as Body | null)?.stream === true, true);
  const response = 'response' in outcome && outcome.response ? outcome.response : { content: '' };
  if ((request.body as Body | null)?.stream !== true)
    return { json: message(response, request, callIndex, true, outcome, cache) };
  const before = outcome.type === 'stream_error' ? (outcome.before ?? { content: '' }) : response;
  const body: Body[] = [
    { type: 'message_start', message: message(before, request, callIndex, false, outcome, cache) },
    ...blockEvents(before, reasoningOf(outcome)),
  ];
  if (outcome.type === 'stream_error') {
    body.push({
      type: 'error',
      error: {
        type: outcome.errorType,
        message: outcome.message ?? (outcome.errorType === 'overloaded_error' ? 'Overloaded' : 'Internal server error'),
      },
    });
  } else {
    const usage = usageOf(response, request.body);
    body.push({
      type: 'message_delta',
      delta: { stop_reason: stopReason(response, outcome), stop_sequence: null },
      usage: { output_tokens: usage.outputTokens },
    });
    body.push({ type: 'message_stop' });
  }
  return { events: body.map((data) => ({ event: String(data.type), data })) };
}

/**
 * A local Anthropic Messages API server (`POST /v1/messages`) on an ephemeral `127.0.0.1` port, answering with JSON
 * or, when the body has `stream: true`, SSE events (`message_start`, `content_block_start/delta/stop`,
 * `message_delta`, `message_stop`). Each call takes the next step of `script` and is recorded in `requests`.
 * `baseURL` is the origin (the Anthropic SDK adds `/v1`). Call `close()` when done. With `promptCache: true` it
 * simulates the prompt cache (see {@link FakeAnthropicServerOptions}).
 */
export function fakeAnthropicServer(
  script: FakeProviderScript = [],
  options: FakeAnthropicServerOptions = {},
): Promise<FakeProviderServer> {
  const cache = options.promptCache ? new FakePromptCache() : undefined;
  const accounted = new WeakMap<FakeProviderRequest, FakeCacheUsage>();
  // Each request is accounted once, when it is first rendered (a request is rendered once).
  const cacheUsage = (request: FakeProviderRequest): FakeCacheUsage | undefined => {
    if (!cache || typeof request.body !== 'object' || request.body === null) return undefined;
    let usage = accounted.get(request);
    if (!usage) {
      usage = cache.account(request.body as Body);
      accounted.set(request, usage);
    }
    return usage;
  };
  const format: WireFormat = {
    serverName: 'fakeAnthropicServer',
    basePath: '',
    modelPaths: ['/v1/messages'],
    contextLengthMessage: 'prompt is too long: 210000 tokens > 200000 maximum',
    errorBody: ({ status, message, errorType }) => ({
      type: 'error',
      error: { type: errorType ?? DEFAULT_ERROR_TYPE[status] ?? 'api_error', message },
    }),
    headers: () => ({ 'request-id': `req_fake${++requestCounter}` }),
    render: (outcome, request, callIndex) => render(outcome, request, callIndex, cacheUsage(request)),
  };
  return startFakeProviderServer(format, script);
}
