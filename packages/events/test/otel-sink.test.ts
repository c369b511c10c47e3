import { type Tracer, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type OtelSinkOptions, otelSink } from '../src/otel-sink';
import type { OtelTracer } from '../src/otel-types';
import type { RunEvent } from '../src/types';
import { at, CLIENT, ERROR, INTERNAL, ms, parentOf, setupOtel, UNSET } from './otel-test-setup';
import { sampleRun } from './test-events';

const usage = { inputTokens: 3, outputTokens: 4 };

describe('otelSink types', () => {
  it("takes the API's own Tracer, though its types never import @opentelemetry/api", () => {
    // Checked by tsc (the package's typecheck): the real Tracer fits the structural OtelTracer.
    expectTypeOf<Tracer>().toExtend<OtelTracer>();
    expect(otelSink({ tracer: trace.getTracer('no-provider') }).openRuns).toBe(0);
  });
});

describe('otelSink on a recorded run', () => {
  it('makes one invoke_agent span with a chat span per attempt and an execute_tool span per call', () => {
    const { sink, spans } = setupOtel();
    for (const event of sampleRun) sink.onEvent(event);

    expect(spans().map((span) => span.name)).toEqual([
      'chat model',
      'chat model',
      'execute_tool add',
      'execute_tool add',
      'chat model',
      'invoke_agent',
    ]);
    const run = spans()[5] as ReadableSpan;
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.kind).toBe(INTERNAL);
    for (const child of spans().slice(0, 5)) {
      expect(parentOf(child)).toBe(run.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(run.spanContext().traceId);
    }
    expect(spans().map((span) => span.kind)).toEqual([CLIENT, CLIENT, INTERNAL, INTERNAL, CLIENT, INTERNAL]);
    expect(sink.openRuns).toBe(0);
  });

  it('sets the GenAI semantic convention attributes and no content by default', () => {
    const { sink, spans } = setupOtel();
    for (const event of sampleRun) sink.onEvent(event);
    const [failedAttempt, retried, addOk, addFailed, answer, run] = spans() as ReadableSpan[];

    expect(run?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'model',
      'bridle.run_id': 'r1',
      'bridle.status': 'completed',
      'bridle.steps': 2,
      'bridle.tool_calls': 2,
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 7,
    });
    const chat = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'model',
      'bridle.run_id': 'r1',
    };
    expect(failedAttempt?.attributes).toEqual({
      ...chat,
      'bridle.step': 1,
      'bridle.attempt': 1,
      'bridle.retryable': true,
      'bridle.will_retry': true,
      'error.type': 'rate_limited',
    });
    expect(retried?.attributes).toEqual({
      ...chat,
      'bridle.step': 1,
      'bridle.attempt': 2,
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 2,
      'bridle.tool_calls': 2,
    });
    expect(answer?.attributes).toEqual({
      ...chat,
      'bridle.step': 2,
      'bridle.attempt': 1,
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'bridle.tool_calls': 0,
    });
    const tool = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.type': 'function',
      'bridle.run_id': 'r1',
      'bridle.step': 1,
    };
    expect(addOk?.attributes).toEqual({ ...tool, 'gen_ai.tool.call.id': 'c1' });
    expect(addFailed?.attributes).toEqual({ ...tool, 'gen_ai.tool.call.id': 'c2', 'error.type': 'tool_error' });
  });

  it('sets ERROR statuses on the failed attempt and the failed tool call only', () => {
    const { sink, spans } = setupOtel();
    for (const event of sampleRun) sink.onEvent(event);
    expect(spans().map((span) => span.status)).toEqual([
      { code: ERROR, message: 'rate limited' },
      { code: UNSET },
      { code: UNSET },
      // Without captureContent the tool's error text (which may quote user data) stays out of the span.
      { code: ERROR, message: 'the tool call returned an error result' },
      { code: UNSET },
      { code: UNSET },
    ]);
  });

  it('places spans at the events’ times, with durations from the events', () => {
    const { sink, spans } = setupOtel();
    for (const event of sampleRun) sink.onEvent(event);
    const times = spans().map((span) => [ms(span.startTime), ms(span.endTime)]);
    const base = '2025-01-31T12:00:00.000Z';
    expect(times).toEqual([
      [at(base, 1), at(base, 2)],
      [at(base, 3), at(base, 3 + 117)],
      [at(base, 121), at(base, 121 + 3)],
      [at(base, 125), at(base, 125 + 1)],
      [at(base, 127), at(base, 127 + 1373)],
      [at(base), at(base, 1501)],
    ]);
  });

  it('records prompts, answers, arguments and results only with captureContent', () => {
    const { sink, spans } = setupOtel({ captureContent: true });
    const start = sampleRun[0] as RunEvent;
    sink.onEvent({ ...start, system: 'Be brief.' } as RunEvent);
    for (const event of sampleRun.slice(1)) sink.onEvent(event);
    const [, retried, addOk, addFailed, answer, run] = spans() as ReadableSpan[];

    expect(run?.attributes['gen_ai.system_instructions']).toBe('[{"type":"text","content":"Be brief."}]');
    expect(run?.attributes['gen_ai.input.messages']).toBe(
      '[{"role":"user","parts":[{"type":"text","content":"add"}]}]',
    );
    expect(run?.attributes['gen_ai.output.messages']).toBe(
      '[{"role":"assistant","parts":[{"type":"text","content":"It is 3"}],"finish_reason":"stop"}]',
    );
    expect(retried?.attributes['gen_ai.output.messages']).toBe(
      '[{"role":"assistant","parts":[{"type":"text","content":""}],"finish_reason":"tool_call"}]',
    );
    expect(answer?.attributes['gen_ai.output.messages']).toBe(
      '[{"role":"assistant","parts":[{"type":"text","content":"It is 3"}],"finish_reason":"stop"}]',
    );
    expect(addOk?.attributes['gen_ai.tool.call.arguments']).toBe('{"a":1,"b":2}');
    expect(addOk?.attributes['gen_ai.tool.call.result']).toBe('3');
    expect(addFailed?.attributes['gen_ai.tool.call.result']).toBe('Invalid arguments: $.a: must be number');
    expect(addFailed?.status).toEqual({ code: ERROR, message: 'Invalid arguments: $.a: must be number' });
  });

  it('keeps every content attribute out by default', () => {
    const { sink, spans } = setupOtel();
    const start = sampleRun[0] as RunEvent;
    sink.onEvent({ ...start, system: 'Be brief.' } as RunEvent);
    for (const event of sampleRun.slice(1)) sink.onEvent(event);
    const keys = spans().flatMap((span) => Object.keys(span.attributes));
    const content = [
      'gen_ai.system_instructions',
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ];
    expect(keys.filter((key) => content.includes(key))).toEqual([]);
    const values = JSON.stringify(spans().map((span) => [span.attributes, span.status]));
    for (const secret of ['Be brief.', 'It is 3', 'must be number', '"a"']) expect(values).not.toContain(secret);
  });
});

describe('otelSink content limits', () => {
  const run = (events: RunEvent[], options: Omit<OtelSinkOptions, 'tracer'>) => {
    const setupResult = setupOtel(options);
    for (const event of events) setupResult.sink.onEvent(event);
    return setupResult;
  };
  const stamp = { runId: 'r', timestamp: '2025-01-31T12:00:00.000Z' };
  const end: RunEvent = {
    ...stamp,
    sequence: 9,
    type: 'run_end',
    status: 'completed',
    steps: 1,
    toolCalls: 1,
    usage,
    durationMs: 1,
    answer: 'abcdefghij',
  };

  it('cuts each captured text to maxAttributeChars with an ellipsis, never inside a surrogate pair', () => {
    const circular: Record<string, unknown> = { big: 10n };
    circular.self = circular;
    const { named } = run(
      [
        { ...stamp, sequence: 0, type: 'run_start', model: 'openai:gpt-4o-mini', prompt: 'abc😀def' },
        { ...stamp, sequence: 1, type: 'tool_start', step: 1, callId: 'c', name: 't', arguments: circular },
        {
          ...stamp,
          sequence: 2,
          type: 'tool_end',
          step: 1,
          callId: 'c',
          name: 't',
          durationMs: 0,
          isError: true,
          result: '0123456789',
        },
        end,
      ],
      { captureContent: true, maxAttributeChars: 5 },
    );
    const [agent] = named('invoke_agent');
    // 'abc' + the high surrogate would be 4 chars: the half pair is dropped rather than kept broken.
    expect(agent?.attributes['gen_ai.input.messages']).toBe(
      '[{"role":"user","parts":[{"type":"text","content":"abc…"}]}]',
    );
    expect(agent?.attributes['gen_ai.output.messages']).toBe(
      '[{"role":"assistant","parts":[{"type":"text","content":"abcd…"}],"finish_reason":"stop"}]',
    );
    const [tool] = named('execute_tool t');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"bi…');
    expect(tool?.attributes['gen_ai.tool.call.result']).toBe('0123…');
    expect(tool?.status).toEqual({ code: ERROR, message: '0123…' });
  });

  it('writes BigInts and circular references in tool arguments instead of dropping them', () => {
    const circular: Record<string, unknown> = { big: 10n };
    circular.self = circular;
    const { named } = run(
      [
        { ...stamp, sequence: 0, type: 'run_start', model: 'm' },
        { ...stamp, sequence: 1, type: 'tool_start', step: 1, callId: 'c', name: 't', arguments: circular },
        { ...stamp, sequence: 2, type: 'tool_start', step: 1, callId: 'd', name: 't', arguments: undefined },
        end,
      ],
      { captureContent: true },
    );
    expect(named('execute_tool t').map((span) => span.attributes['gen_ai.tool.call.arguments'])).toEqual([
      '{"big":"10","self":"[Circular]"}',
      'null',
    ]);
  });

  it('names the model span after the model id without its provider prefix, and sets no provider without one', () => {
    const { spans } = run(
      [
        { ...stamp, sequence: 0, type: 'run_start', model: 'local-llama' },
        { ...stamp, sequence: 1, type: 'model_start', step: 1, attempt: 1 },
        { ...stamp, sequence: 2, type: 'model_end', step: 1, durationMs: 1, usage, toolCalls: 0, content: 'x' },
        end,
      ],
      {},
    );
    expect(spans().map((span) => span.name)).toEqual(['chat local-llama', 'invoke_agent']);
    expect(spans()[1]?.attributes['gen_ai.request.model']).toBe('local-llama');
    expect(Object.keys(spans()[1]?.attributes ?? {})).not.toContain('gen_ai.provider.name');
  });

  it('keeps a compatible server URL (and its credentials) out of spans: the model and server address only', () => {
    const { spans } = run(
      [
        {
          ...stamp,
          sequence: 0,
          type: 'run_start',
          model: 'openai-compatible:https://user:s3cret@llm.example:8443/v1?api-key=s3cret#llama3.2',
          sessionId: 'session-7',
        },
        { ...stamp, sequence: 1, type: 'model_start', step: 1, attempt: 1 },
        {
          ...stamp,
          sequence: 2,
          type: 'model_end',
          step: 1,
          durationMs: 1,
          usage,
          toolCalls: 0,
          content: 'x',
          finishReason: 'length',
          model: 'openai-compatible:https://user:s3cret@llm.example:8443/v1#llama3.2-fallback',
        },
        end,
      ],
      { captureContent: true },
    );
    expect(spans().map((span) => span.name)).toEqual(['chat llama3.2', 'invoke_agent']);
    const [chat, agent] = spans();
    expect(agent?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.request.model': 'llama3.2',
      'gen_ai.conversation.id': 'session-7',
      'server.address': 'llm.example',
      'server.port': 8443,
    });
    expect(chat?.attributes).toMatchObject({
      'gen_ai.request.model': 'llama3.2',
      'gen_ai.response.model': 'llama3.2-fallback',
      'gen_ai.response.finish_reasons': ['length'],
      'server.address': 'llm.example',
      'server.port': 8443,
    });
    expect(JSON.parse(String(chat?.attributes['gen_ai.output.messages']))[0].finish_reason).toBe('length');
    expect(JSON.stringify(spans().map((span) => span.attributes))).not.toContain('s3cret');
  });

  it('records a run started from a transcript as its input messages, only with captureContent', () => {
    const messages = [
      { role: 'user' as const, content: 'What is 2 + 3?' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { role: 'tool' as const, callId: 'c1', name: 'add', content: '5', isError: false },
      { role: 'assistant' as const, content: 'It is 5.' },
      { role: 'user' as const, content: 'And 2 + 4?' },
    ];
    const events: RunEvent[] = [{ ...stamp, sequence: 0, type: 'run_start', model: 'scripted:m', messages }, end];
    const captured = run(events, { captureContent: true }).spans()[0];
    expect(JSON.parse(String(captured?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is 2 + 3?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'add', arguments: '{"a":2,"b":3}' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: '5' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'It is 5.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'And 2 + 4?' }] },
    ]);
    expect(Object.keys(run(events, {}).spans()[0]?.attributes ?? {})).not.toContain('gen_ai.input.messages');
  });
});
