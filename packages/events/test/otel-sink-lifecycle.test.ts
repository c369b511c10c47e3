import { ConfigError } from '@bridle/protocol';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OtelSinkOptions, otelSink } from '../src/otel-sink';
import { RunEmitter } from '../src/run-emitter';
import type { RunEvent } from '../src/types';
import { at, ERROR, ms, parentOf, setupOtel } from './otel-test-setup';
import { sampleRun } from './test-events';

const usage = { inputTokens: 3, outputTokens: 4 };

describe('otelSink with live emitters', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: new Date('2025-01-31T12:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a tool cut by a timeout at run_end, with the run’s status as its error', () => {
    const { sink, named } = setupOtel();
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
    expect(ms(tool?.endTime)).toBe(at('2025-01-31T12:00:00.060Z'));
    expect(run?.status).toEqual({ code: ERROR, message: 'The run took longer than timeoutMs (50 ms)' });
    expect(run?.attributes['error.type']).toBe('timeout');
    expect(run?.attributes['bridle.status']).toBe('timeout');
    expect(ms(run?.startTime)).toBe(at('2025-01-31T12:00:00.000Z'));
    expect(ms(run?.endTime)).toBe(at('2025-01-31T12:00:00.060Z'));
    expect(named('execute_tool sleep')).toHaveLength(1);
    expect(sink.openRuns).toBe(0);
  });

  it('ends a model call cut by an abort at run_end', () => {
    const { sink, spans } = setupOtel();
    const emitter = new RunEmitter({ runId: 'stop', onEvent: sink.onEvent });
    emitter.emit({ type: 'run_start', model: 'anthropic:claude-sonnet-4-6' });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(5);
    emitter.emit({ type: 'run_end', status: 'aborted', steps: 0, toolCalls: 0, usage, error: 'Aborted by caller' });

    expect(spans().map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
      [
        'chat claude-sonnet-4-6',
        { code: ERROR, message: 'the run ended (aborted) before the model call finished' },
        'aborted',
      ],
      ['invoke_agent', { code: ERROR, message: 'Aborted by caller' }, 'aborted'],
    ]);
    expect(spans()[1]?.attributes['gen_ai.provider.name']).toBe('anthropic');
  });

  it('uses the status as the message of a failed run without an error text', () => {
    const { sink, spans } = setupOtel();
    const emitter = new RunEmitter({ runId: 'limit', onEvent: sink.onEvent });
    emitter.emit({ type: 'run_start', model: 'm' });
    emitter.emit({ type: 'run_end', status: 'step_limit', steps: 10, toolCalls: 0, usage });
    expect(spans()[0]?.status).toEqual({ code: ERROR, message: 'step_limit' });
  });

  it('keeps interleaved runs apart and drops each run’s state at its run_end', () => {
    const { sink, spans } = setupOtel();
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
    const { sink, named } = setupOtel();
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
    expect(ms(named('execute_tool t')[0]?.endTime)).toBe(at('2025-01-31T12:00:00.000Z', 20.75));
    expect(ms(named('invoke_agent')[0]?.endTime)).toBe(at('2025-01-31T12:00:00.000Z', 20.75));
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
    const { sink, spans } = setupOtel();
    for (const event of sampleRun.slice(1)) sink.onEvent(event);
    expect(spans()).toEqual([]);
    expect(sink.openRuns).toBe(0);
  });

  it('ends the oldest run when more than maxOpenRuns are open, and reports it', () => {
    const errors: unknown[] = [];
    const { sink, spans } = setupOtel({ maxOpenRuns: 2, onError: (error) => errors.push(error) });
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
    const { sink, spans } = setupOtel();
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
      'Invalid otelSink option maxAttributeChars: expected an integer >= 1 (a safe integer), got number 0.',
    );
    expect(() => otelSink({ tracer, maxOpenRuns: 1.5 })).toThrow(
      'Invalid otelSink option maxOpenRuns: expected an integer >= 1 (a safe integer), got number 1.5.',
    );
  });
});
