import type { ModelResponse, ToolCall } from '@bridle/protocol';
import type { FakeOutcome, FakeProviderRequest, FakeProviderScript } from './fake-provider-script';
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

function blocks(response: ModelResponse): Body[] {
  const calls = response.toolCalls ?? [];
  const text = response.content !== '' || calls.length === 0 ? [{ type: 'text', text: response.content }] : [];
  return [...text, ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) }))];
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
): Body {
  const usage = usageOf(response, request.body);
  return {
    id: fakeId('msg', callIndex),
    type: 'message',
    role: 'assistant',
    model: requestedModel(request.body),
    content: done ? blocks(response) : [],
    stop_reason: done ? stopReason(response, outcome) : null,
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: done ? usage.outputTokens : 1,
      service_tier: 'standard',
    },
  };
}

function blockEvents(response: ModelResponse): Body[] {
  const events: Body[] = [];
  const calls = response.toolCalls ?? [];
  let index = 0;
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
): { json: unknown } | { events: SseEvent[] } {
  if (outcome.type === 'raw') return renderRaw(outcome, (request.body as Body | null)?.stream === true, true);
  const response = 'response' in outcome && outcome.response ? outcome.response : { content: '' };
  if ((request.body as Body | null)?.stream !== true)
    return { json: message(response, request, callIndex, true, outcome) };
  const before = outcome.type === 'stream_error' ? (outcome.before ?? { content: '' }) : response;
  const body: Body[] = [
    { type: 'message_start', message: message(before, request, callIndex, false) },
    ...blockEvents(before),
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
 * `baseURL` is the origin (the Anthropic SDK adds `/v1`). Call `close()` when done.
 */
export function fakeAnthropicServer(script: FakeProviderScript = []): Promise<FakeProviderServer> {
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
    render,
  };
  return startFakeProviderServer(format, script);
}
