import { ConfigError } from '@bridle/protocol';
import type { HrTime, Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OtelSinkOptions, otelSink } from './otel-sink';
import { RunEmitter } from './run-emitter';
import { sampleRun } from './test-events';
import type { RunEvent } from './types';

const INTERNAL = 0;
const CLIENT = 2;
const UNSET = 0;
const ERROR = 2;
const usage = { inputTokens: 3, outputTokens: 4 };

function setup(options: Omit<OtelSinkOptions, 'tracer'> = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sink = otelSink({ tracer: provider.getTracer('bridle-test'), ...options });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((span) => span.name === name);
  return { sink, spans, named };
}

function ms(time: HrTime): number {
  return time[0] * 1000 + time[1] / 1e6;
}

function at(iso: string, plusMs = 0): number {
  return Date.parse(iso) + plusMs;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe('otelSink on a recorded run', () => {
  it('makes one invoke_agent span with a chat span per attempt and an execute_tool span per call', () => {
    const { sink, spans } = setup();
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
    const { sink, spans } = setup();
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
    const { sink, spans } = setup();
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
    const { sink, spans } = setup();
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
    const { sink, spans } = setup({ captureContent: true });
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
    const { sink, spans } = setup();
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
    const setupResult = setup(options);
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
});

describe('otelSink with live emitters', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: new Date('2025-01-31T12:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a tool cut by a timeout at run_end, with the run’s status as its error', () => {
    const { sink, named } = setup();
    const emitter = new RunEmitter({ runId: 'slow', onEvent: sink.onEvent });
    emitter.emit({ type: 'run_start', model: 'scripted:model', prompt: 'go' });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(10);
    emitter.emit({ type: 'model_end', step: 1, usage, toolCalls: 1, content: '' });
    emitter.emit({ type: 'tool_start', step: 1, callId: 'c1', name: 'sleep', arguments: { ms: 1e6 } });
    vi.advanceTimersByTime(50);
    expect(sink.openRuns).toBe(1);
    emitter.emit({
      type: 'run_end',
      status: 'timeout',
      steps: 1,
      toolCalls: 1,
      usage,
      error: 'The run took longer than timeoutMs (50 ms)',
    });
    // A tool_end that arrives after run_end (the emitter drops it anyway) changes nothing.
    sink.onEvent({
      type: 'tool_end',
      runId: 'slow',
      sequence: 9,
      timestamp: new Date().toISOString(),
      step: 1,
      callId: 'c1',
      name: 'sleep',
      durationMs: 60,
      isError: true,
      result: 'aborted',
    });

    const [tool] = named('execute_tool sleep');
    const [run] = named('invoke_agent');
    expect(tool?.status).toEqual({ code: ERROR, message: 'the run ended (timeout) before the tool call finished' });
    expect(tool?.attributes['error.type']).toBe('timeout');
    expect(ms(tool?.endTime ?? [0, 0])).toBe(at('2025-01-31T12:00:00.060Z'));
    expect(run?.status).toEqual({ code: ERROR, message: 'The run took longer than timeoutMs (50 ms)' });
    expect(run?.attributes['error.type']).toBe('timeout');
    expect(run?.attributes['bridle.status']).toBe('timeout');
    expect(ms(run?.startTime ?? [0, 0])).toBe(at('2025-01-31T12:00:00.000Z'));
    expect(ms(run?.endTime ?? [0, 0])).toBe(at('2025-01-31T12:00:00.060Z'));
    expect(named('execute_tool sleep')).toHaveLength(1);
    expect(sink.openRuns).toBe(0);
  });

  it('ends a model call cut by an abort at run_end', () => {
    const { sink, spans } = setup();
    const emitter = new RunEmitter({ runId: 'stop', onEvent: sink.onEvent });
    emitter.emit({ type: 'run_start', model: 'anthropic:claude-sonnet-4-5' });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(5);
    emitter.emit({ type: 'run_end', status: 'aborted', steps: 0, toolCalls: 0, usage, error: 'Aborted by caller' });

    expect(spans().map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
      [
        'chat claude-sonnet-4-5',
        { code: ERROR, message: 'the run ended (aborted) before the model call finished' },
        'aborted',
      ],
      ['invoke_agent', { code: ERROR, message: 'Aborted by caller' }, 'aborted'],
    ]);
    expect(spans()[1]?.attributes['gen_ai.provider.name']).toBe('anthropic');
  });

  it('uses the status as the message of a failed run without an error text', () => {
    const { sink, spans } = setup();
    const emitter = new RunEmitter({ runId: 'limit', onEvent: sink.onEvent });
    emitter.emit({ type: 'run_start', model: 'm' });
    emitter.emit({ type: 'run_end', status: 'step_limit', steps: 10, toolCalls: 0, usage });
    expect(spans()[0]?.status).toEqual({ code: ERROR, message: 'step_limit' });
  });

  it('keeps interleaved runs apart and drops each run’s state at its run_end', () => {
    const { sink, spans } = setup();
    const a = new RunEmitter({ runId: 'a', onEvent: sink.onEvent });
    const b = new RunEmitter({ runId: 'b', onEvent: sink.onEvent });
    a.emit({ type: 'run_start', model: 'scripted:one' });
    b.emit({ type: 'run_start', model: 'scripted:two' });
    a.emit({ type: 'tool_start', step: 1, callId: 'same', name: 'ta', arguments: {} });
    b.emit({ type: 'tool_start', step: 1, callId: 'same', name: 'tb', arguments: {} });
    b.emit({ type: 'model_start', step: 1, attempt: 1 });
    a.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(3);
    a.emit({ type: 'tool_end', step: 1, callId: 'same', name: 'ta', isError: false, result: 'x' });
    b.emit({ type: 'model_end', step: 1, usage, toolCalls: 0, content: '' });
    expect(sink.openRuns).toBe(2);
    b.emit({ type: 'tool_end', step: 1, callId: 'same', name: 'tb', isError: false, result: 'y' });
    b.emit({ type: 'run_end', status: 'completed', steps: 1, toolCalls: 1, usage });
    expect(sink.openRuns).toBe(1);
    a.emit({ type: 'model_end', step: 1, usage, toolCalls: 0, content: '' });
    a.emit({ type: 'run_end', status: 'completed', steps: 1, toolCalls: 1, usage });
    expect(sink.openRuns).toBe(0);

    const byName = new Map(spans().map((span) => [span.name, span]));
    const runOf = (name: string) => byName.get(name)?.attributes['bridle.run_id'];
    const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId;
    const runs = spans().filter((span) => span.name === 'invoke_agent');
    const [runB, runA] = runs;
    expect(runs.map((span) => span.attributes['bridle.run_id'])).toEqual(['b', 'a']);
    expect(runA?.spanContext().traceId).not.toBe(runB?.spanContext().traceId);
    expect([runOf('execute_tool ta'), runOf('chat one'), runOf('execute_tool tb'), runOf('chat two')]).toEqual([
      'a',
      'a',
      'b',
      'b',
    ]);
    expect(parentOf(byName.get('execute_tool ta') as ReadableSpan)).toBe(idOf(runA));
    expect(parentOf(byName.get('chat one') as ReadableSpan)).toBe(idOf(runA));
    expect(parentOf(byName.get('execute_tool tb') as ReadableSpan)).toBe(idOf(runB));
    expect(parentOf(byName.get('chat two') as ReadableSpan)).toBe(idOf(runB));
  });

  it('ends the run span no earlier than its last child', () => {
    const { sink, named } = setup();
    const events: RunEvent[] = [
      { type: 'run_start', runId: 'r', sequence: 0, timestamp: '2025-01-31T12:00:00.000Z', model: 'm' },
      {
        type: 'tool_start',
        runId: 'r',
        sequence: 1,
        timestamp: '2025-01-31T12:00:00.010Z',
        step: 1,
        callId: 'c',
        name: 't',
        arguments: {},
      },
      {
        type: 'tool_end',
        runId: 'r',
        sequence: 2,
        timestamp: '2025-01-31T12:00:00.020Z',
        step: 1,
        callId: 'c',
        name: 't',
        durationMs: 10.75,
        isError: false,
        result: '',
      },
      {
        type: 'run_end',
        runId: 'r',
        sequence: 3,
        timestamp: '2025-01-31T12:00:00.020Z',
        status: 'completed',
        steps: 1,
        toolCalls: 1,
        usage,
        durationMs: 20.8,
      },
    ];
    for (const event of events) sink.onEvent(event);
    expect(ms(named('execute_tool t')[0]?.endTime ?? [0, 0])).toBe(at('2025-01-31T12:00:00.000Z', 20.75));
    expect(ms(named('invoke_agent')[0]?.endTime ?? [0, 0])).toBe(at('2025-01-31T12:00:00.000Z', 20.75));
  });
});

describe('otelSink robustness', () => {
  const start = (runId: string): RunEvent => ({
    type: 'run_start',
    runId,
    sequence: 0,
    timestamp: '2025-01-31T12:00:00.000Z',
    model: 'm',
  });

  it('ignores events of runs it did not see start', () => {
    const { sink, spans } = setup();
    for (const event of sampleRun.slice(1)) sink.onEvent(event);
    expect(spans()).toEqual([]);
    expect(sink.openRuns).toBe(0);
  });

  it('ends the oldest run when more than maxOpenRuns are open, and reports it', () => {
    const errors: unknown[] = [];
    const { sink, spans } = setup({ maxOpenRuns: 2, onError: (error) => errors.push(error) });
    sink.onEvent(start('one'));
    sink.onEvent(start('two'));
    sink.onEvent(start('three'));
    expect(sink.openRuns).toBe(2);
    expect(
      spans().map((span) => [span.attributes['bridle.run_id'], span.status, span.attributes['error.type']]),
    ).toEqual([
      [
        'one',
        {
          code: ERROR,
          message: 'otelSink: more than 2 runs open at once (maxOpenRuns); run one was ended without its run_end',
        },
        'dropped',
      ],
    ]);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      'otelSink: more than 2 runs open at once (maxOpenRuns); run one was ended without its run_end',
    ]);
  });

  it('ends a run whose runId starts again before its run_end', () => {
    const { sink, spans } = setup();
    sink.onEvent(start('again'));
    sink.onEvent(start('again'));
    expect(spans().map((span) => span.status)).toEqual([
      { code: ERROR, message: 'run again started again before its run_end' },
    ]);
    expect(sink.openRuns).toBe(1);
  });

  it('never throws when the tracer does, and reports the error', () => {
    const errors: unknown[] = [];
    const failure = new Error('exporter down');
    const tracer = {
      startSpan: () => {
        throw failure;
      },
    } as unknown as Tracer;
    const sink = otelSink({
      tracer,
      onError: (error) => {
        errors.push(error);
        throw new Error('the hook fails too');
      },
    });
    for (const event of sampleRun) expect(() => sink.onEvent(event)).not.toThrow();
    expect(errors).toEqual([failure]);
    expect(sink.openRuns).toBe(0);
  });

  it('rejects a missing tracer and invalid limits with a ConfigError', () => {
    const tracer = new BasicTracerProvider().getTracer('t');
    expect(() => otelSink({} as OtelSinkOptions)).toThrow(ConfigError);
    expect(() => otelSink({} as OtelSinkOptions)).toThrow(
      'otelSink: `tracer` must be an OpenTelemetry Tracer, e.g. trace.getTracer("my-app")',
    );
    expect(() => otelSink({ tracer, maxAttributeChars: 0 })).toThrow(
      'otelSink: `maxAttributeChars` must be a positive integer, got 0',
    );
    expect(() => otelSink({ tracer, maxOpenRuns: 1.5 })).toThrow(
      'otelSink: `maxOpenRuns` must be a positive integer, got 1.5',
    );
  });
});
