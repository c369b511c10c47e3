import type { ModelResponse } from '@bridle/protocol';
import type { FakeOutcome, FakeProviderRequest, FakeReasoning } from './fake-provider-script';
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

type Item = Record<string, unknown>;
type Body = Record<string, unknown>;

function messageItem(response: ModelResponse, callIndex: number, status: string): Item {
  return {
    id: fakeId('msg', callIndex),
    type: 'message',
    status,
    content: [{ type: 'output_text', annotations: [], logprobs: [], text: response.content }],
    role: 'assistant',
  };
}

function functionCallItems(response: ModelResponse, callIndex: number): Item[] {
  return (response.toolCalls ?? []).map((call, index) => ({
    id: fakeId('fc', callIndex, index),
    type: 'function_call',
    status: 'completed',
    arguments: argumentsText(call),
    call_id: call.id,
    name: call.name,
  }));
}

/** True when the request asked for encrypted reasoning (`include: ['reasoning.encrypted_content']`). */
function wantsEncryptedReasoning(request: FakeProviderRequest): boolean {
  const include = (request.body as Body | null)?.include;
  return Array.isArray(include) && include.includes('reasoning.encrypted_content');
}

/** Reasoning items: the text as a summary, the signature as `encrypted_content` when the request asked for it. */
function reasoningItems(reasoning: readonly FakeReasoning[], request: FakeProviderRequest, callIndex: number): Item[] {
  const encrypted = wantsEncryptedReasoning(request);
  return reasoning.map((step, index) => ({
    id: fakeId('rs', callIndex, index),
    type: 'reasoning',
    summary: step.text === undefined ? [] : [{ type: 'summary_text', text: step.text }],
    ...(encrypted ? { encrypted_content: step.signature ?? step.redacted ?? null } : {}),
  }));
}

function reasoningOf(outcome: FakeOutcome | undefined): readonly FakeReasoning[] {
  return outcome?.type === 'response' ? (outcome.reasoning ?? []) : [];
}

/** Output items: reasoning items, a message (when there is text, or nothing else), then one `function_call` per tool call. */
function outputItems(
  response: ModelResponse,
  request: FakeProviderRequest,
  callIndex: number,
  outcome?: FakeOutcome,
): Item[] {
  const calls = functionCallItems(response, callIndex);
  const message = response.content !== '' || calls.length === 0 ? [messageItem(response, callIndex, 'completed')] : [];
  return [...reasoningItems(reasoningOf(outcome), request, callIndex), ...message, ...calls];
}

/** A `response` object shaped like the Responses API's. */
function responseObject(
  response: ModelResponse,
  request: FakeProviderRequest,
  callIndex: number,
  done: boolean,
  incomplete?: string,
  outcome?: FakeOutcome,
): Body {
  const body = (request.body ?? {}) as Body;
  const usage = usageOf(response, request.body);
  return {
    id: fakeId('resp', callIndex),
    object: 'response',
    created_at: unixNow(),
    status: done ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: done && incomplete ? { reason: incomplete } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: requestedModel(body),
    output: done ? outputItems(response, request, callIndex, outcome) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: done
      ? {
          input_tokens: usage.inputTokens,
          input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
          output_tokens: usage.outputTokens,
          output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
          total_tokens: usage.inputTokens + usage.outputTokens,
        }
      : null,
    user: null,
    metadata: {},
  };
}

function reasoningEvents(items: Item[]): Body[] {
  return items.flatMap((item, output_index) => {
    const summary = item.summary as { text: string }[];
    const at = { item_id: item.id, output_index, summary_index: 0 };
    const text = summary[0]?.text;
    const added = { type: 'response.output_item.added', output_index, item: { ...item, summary: [] } };
    const done = { type: 'response.output_item.done', output_index, item };
    if (text === undefined) return [added, done];
    const part = { type: 'summary_text', text };
    return [
      added,
      { type: 'response.reasoning_summary_part.added', ...at, part: { ...part, text: '' } },
      ...textDeltas(text).map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...at, delta })),
      { type: 'response.reasoning_summary_text.done', ...at, text },
      { type: 'response.reasoning_summary_part.done', ...at, part },
      done,
    ];
  });
}

function messageEvents(response: ModelResponse, callIndex: number, outputIndex = 0): Body[] {
  const item = messageItem(response, callIndex, 'completed');
  const itemId = item.id;
  const part = { type: 'output_text', annotations: [], logprobs: [], text: response.content };
  const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
  return [
    {
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { ...item, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    ...textDeltas(response.content).map((delta) => ({
      type: 'response.output_text.delta',
      ...at,
      delta,
      logprobs: [],
    })),
    { type: 'response.output_text.done', ...at, text: response.content, logprobs: [] },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index: outputIndex, item },
  ];
}

function functionCallEvents(items: Item[], firstIndex: number, interleave: boolean): Body[] {
  const perItem = items.map((item, index) => {
    const at = { item_id: item.id, output_index: firstIndex + index };
    return {
      added: {
        type: 'response.output_item.added',
        output_index: at.output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      },
      deltas: argumentDeltas(String(item.arguments)).map((delta) => ({
        type: 'response.function_call_arguments.delta',
        ...at,
        delta,
      })),
      done: [
        { type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments },
        { type: 'response.output_item.done', output_index: at.output_index, item },
      ],
    };
  });
  if (!interleave) return perItem.flatMap((entry) => [entry.added, ...entry.deltas, ...entry.done]);
  return [
    ...perItem.map((entry) => entry.added),
    ...roundRobin(perItem.map((entry) => entry.deltas)),
    ...perItem.flatMap((entry) => entry.done),
  ];
}

/** The Responses API answer for one outcome: a JSON body, or SSE events when the request asked to stream. */
export function renderResponses(
  outcome: FakeOutcome,
  request: FakeProviderRequest,
  callIndex: number,
): { json: unknown } | { events: SseEvent[] } {
  if (outcome.type === 'raw') return renderRaw(outcome, (request.body as Body | null)?.stream === true, true);
  const response = 'response' in outcome && outcome.response ? outcome.response : { content: '' };
  const stream = (request.body as Body | null)?.stream === true;
  // `stopReason` (e.g. `max_output_tokens`) makes an incomplete response, as a capped or filtered one is.
  const incomplete = outcome.type === 'response' ? outcome.stopReason : undefined;
  if (!stream) return { json: responseObject(response, request, callIndex, true, incomplete, outcome) };

  const before = outcome.type === 'stream_error' ? (outcome.before ?? { content: '' }) : response;
  const calls = functionCallItems(before, callIndex);
  const reasoning = reasoningItems(reasoningOf(outcome), request, callIndex);
  const hasMessage = before.content !== '' || calls.length === 0;
  const interleave = outcome.type === 'response' && outcome.interleave === true;
  const body: Body[] = [
    { type: 'response.created', response: responseObject(before, request, callIndex, false) },
    { type: 'response.in_progress', response: responseObject(before, request, callIndex, false) },
    ...reasoningEvents(reasoning),
    ...(hasMessage ? messageEvents(before, callIndex, reasoning.length) : []),
    ...functionCallEvents(calls, reasoning.length + (hasMessage ? 1 : 0), interleave),
  ];
  if (outcome.type === 'stream_error') {
    body.push({
      type: 'error',
      code: outcome.errorType,
      message: outcome.message ?? 'The server had an error.',
      param: null,
    });
  } else {
    const type = incomplete ? 'response.incomplete' : 'response.completed';
    body.push({ type, response: responseObject(response, request, callIndex, true, incomplete, outcome) });
  }
  return {
    events: body.map((data, sequence) => ({ event: String(data.type), data: { ...data, sequence_number: sequence } })),
  };
}
