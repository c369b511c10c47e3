import type { ModelResponse } from '@bridle/protocol';
import type { FakeOutcome, FakeProviderRequest } from './fake-provider-script';
import type { SseEvent } from './fake-provider-server';
import {
  argumentDeltas,
  argumentsText,
  fakeId,
  renderRaw,
  requestedModel,
  roundRobin,
  textDeltas,
  unixNow,
  usageOf,
} from './fake-wire-helpers';

type Body = Record<string, unknown>;

function usageObject(response: ModelResponse, request: FakeProviderRequest): Body {
  const usage = usageOf(response, request.body);
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(response: ModelResponse, outcome?: FakeOutcome): string {
  if (outcome?.type === 'response' && outcome.stopReason) return outcome.stopReason;
  return (response.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop';
}

function completion(
  response: ModelResponse,
  request: FakeProviderRequest,
  callIndex: number,
  outcome: FakeOutcome,
): Body {
  const calls = response.toolCalls ?? [];
  const message: Body = {
    role: 'assistant',
    content: response.content === '' && calls.length > 0 ? null : response.content,
    refusal: null,
    annotations: [],
  };
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call) },
    }));
  }
  return {
    id: fakeId('chatcmpl', callIndex),
    object: 'chat.completion',
    created: unixNow(),
    model: requestedModel(request.body),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(response, outcome) }],
    usage: usageObject(response, request),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function toolCallDeltas(response: ModelResponse, interleave: boolean): Body[] {
  const perCall = (response.toolCalls ?? []).map((call, index) => [
    { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
    ...argumentDeltas(argumentsText(call)).map((piece) => ({ index, function: { arguments: piece } })),
  ]);
  const ordered = interleave ? roundRobin(perCall) : perCall.flat();
  return ordered.map((toolCall) => ({ tool_calls: [toolCall] }));
}

/** The Chat Completions answer for one outcome: a JSON body, or `chat.completion.chunk` SSE events. */
export function renderChat(
  outcome: FakeOutcome,
  request: FakeProviderRequest,
  callIndex: number,
): { json: unknown } | { events: SseEvent[] } {
  if (outcome.type === 'raw') return renderRaw(outcome, (request.body as Body | null)?.stream === true, false);
  const response = 'response' in outcome && outcome.response ? outcome.response : { content: '' };
  const body = (request.body ?? {}) as Body;
  if (body.stream !== true) return { json: completion(response, request, callIndex, outcome) };

  const includeUsage = (body.stream_options as Body | undefined)?.include_usage === true;
  const chunk = (choices: Body[], extra: Body = {}): SseEvent => ({
    data: {
      id: fakeId('chatcmpl', callIndex),
      object: 'chat.completion.chunk',
      created: unixNow(),
      model: requestedModel(body),
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    },
  });
  const choice = (delta: Body, finish: string | null = null): Body => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  const before = outcome.type === 'stream_error' ? (outcome.before ?? { content: '' }) : response;
  const interleave = outcome.type === 'response' && outcome.interleave === true;
  const events: SseEvent[] = [
    chunk([choice({ role: 'assistant', content: '', refusal: null })]),
    ...textDeltas(before.content).map((content) => chunk([choice({ content })])),
    ...toolCallDeltas(before, interleave).map((delta) => chunk([choice(delta)])),
  ];
  if (outcome.type === 'stream_error') {
    const error = {
      message: outcome.message ?? 'The server had an error.',
      type: outcome.errorType,
      param: null,
      code: null,
    };
    events.push({ data: { error } });
    return { events };
  }
  events.push(chunk([choice({}, finishReason(response, outcome))]));
  if (includeUsage) events.push(chunk([], { usage: usageObject(response, request) }));
  events.push({ data: '[DONE]' });
  return { events };
}
