import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunEmitter } from '../src/run-emitter';
import type { RunEvent } from '../src/types';

const usage = { inputTokens: 3, outputTokens: 4 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'performance'], now: new Date('2025-01-31T12:00:00.000Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RunEmitter', () => {
  it('stamps runId, sequence, ISO timestamp and measured durations', () => {
    const events: RunEvent[] = [];
    const emitter = new RunEmitter({ runId: 'run-1', onEvent: (event) => events.push(event) });
    emitter.emit({ type: 'run_start', model: 'scripted:model', prompt: 'hi' });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(5);
    emitter.emit({ type: 'model_start', step: 1, attempt: 2 });
    vi.advanceTimersByTime(20);
    emitter.emit({ type: 'model_end', step: 1, usage, toolCalls: 1, content: '' });
    emitter.emit({ type: 'tool_start', step: 1, callId: 'c1', name: 'add', arguments: { a: 1 } });
    vi.advanceTimersByTime(7);
    emitter.emit({ type: 'tool_end', step: 1, callId: 'c1', name: 'add', isError: false, result: '2' });
    vi.advanceTimersByTime(1);
    emitter.emit({ type: 'run_end', status: 'completed', steps: 1, toolCalls: 1, usage, answer: '2' });

    expect(events).toEqual([
      {
        type: 'run_start',
        runId: 'run-1',
        sequence: 0,
        timestamp: '2025-01-31T12:00:00.000Z',
        model: 'scripted:model',
        prompt: 'hi',
      },
      { type: 'model_start', runId: 'run-1', sequence: 1, timestamp: '2025-01-31T12:00:00.000Z', step: 1, attempt: 1 },
      { type: 'model_start', runId: 'run-1', sequence: 2, timestamp: '2025-01-31T12:00:00.005Z', step: 1, attempt: 2 },
      {
        type: 'model_end',
        runId: 'run-1',
        sequence: 3,
        timestamp: '2025-01-31T12:00:00.025Z',
        step: 1,
        durationMs: 20,
        usage,
        toolCalls: 1,
        content: '',
      },
      {
        type: 'tool_start',
        runId: 'run-1',
        sequence: 4,
        timestamp: '2025-01-31T12:00:00.025Z',
        step: 1,
        callId: 'c1',
        name: 'add',
        arguments: { a: 1 },
      },
      {
        type: 'tool_end',
        runId: 'run-1',
        sequence: 5,
        timestamp: '2025-01-31T12:00:00.032Z',
        step: 1,
        callId: 'c1',
        name: 'add',
        durationMs: 7,
        isError: false,
        result: '2',
      },
      {
        type: 'run_end',
        runId: 'run-1',
        sequence: 6,
        timestamp: '2025-01-31T12:00:00.033Z',
        status: 'completed',
        steps: 1,
        toolCalls: 1,
        usage,
        durationMs: 33,
        answer: '2',
      },
    ]);
    expect(Object.keys(events[0] as object).slice(0, 4)).toEqual(['type', 'runId', 'sequence', 'timestamp']);
  });

  it('matches concurrent tool calls by callId and uses 0 when no start was seen', () => {
    const events: RunEvent[] = [];
    const emitter = new RunEmitter({ runId: 'r', onEvent: [(event) => events.push(event)] });
    emitter.emit({ type: 'tool_start', step: 1, callId: 'a', name: 't', arguments: {} });
    vi.advanceTimersByTime(2);
    emitter.emit({ type: 'tool_start', step: 1, callId: 'b', name: 't', arguments: {} });
    vi.advanceTimersByTime(3);
    emitter.emit({ type: 'tool_end', step: 1, callId: 'b', name: 't', isError: false, result: '' });
    vi.advanceTimersByTime(4);
    emitter.emit({ type: 'tool_end', step: 1, callId: 'a', name: 't', isError: true, result: 'x' });
    emitter.emit({ type: 'tool_end', step: 1, callId: 'unknown', name: 't', isError: true, result: 'x' });
    emitter.emit({ type: 'model_end', step: 9, usage, toolCalls: 0, content: '' });
    expect(events.map((event) => ('durationMs' in event ? event.durationMs : undefined))).toEqual([
      undefined,
      undefined,
      3,
      9,
      0,
      0,
    ]);
  });

  it('matches model calls of several steps by step, the last attempt of each, each end once', () => {
    const events: RunEvent[] = [];
    const emitter = new RunEmitter({ runId: 'r', onEvent: (event) => events.push(event) });
    const end = (step: number) => emitter.emit({ type: 'model_end', step, usage, toolCalls: 0, content: '' });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    vi.advanceTimersByTime(2);
    emitter.emit({ type: 'model_start', step: 2, attempt: 1 });
    vi.advanceTimersByTime(3);
    emitter.emit({ type: 'model_start', step: 1, attempt: 2 });
    vi.advanceTimersByTime(4);
    end(2);
    vi.advanceTimersByTime(1);
    end(1);
    end(1);
    emitter.emit({ type: 'model_start', step: 3, attempt: 1 });
    vi.advanceTimersByTime(6);
    end(3);
    end(2);
    expect(events.flatMap((event) => (event.type === 'model_end' ? [[event.step, event.durationMs]] : []))).toEqual([
      [2, 7],
      [1, 5],
      [1, 0],
      [3, 6],
      [2, 0],
    ]);
  });

  it('never lets a caller override the stamp or the measured duration', () => {
    const emitter = new RunEmitter({ runId: 'real' });
    const sneaky = {
      type: 'run_end',
      status: 'completed',
      steps: 0,
      toolCalls: 0,
      usage,
      runId: 'fake',
      sequence: 99,
      durationMs: -1,
    };
    const event = emitter.emit(sneaky as never);
    expect(event).toMatchObject({ runId: 'real', sequence: 0, durationMs: 0 });
  });

  it('emitOwned stamps an event made with the stamp keys in place: the same fields, order and numbers as emit', () => {
    const copied: RunEvent[] = [];
    const owned: RunEvent[] = [];
    const byCopy = new RunEmitter({ runId: 'r', onEvent: (event) => copied.push(event) });
    const inPlace = new RunEmitter({ runId: 'r', onEvent: (event) => owned.push(event) });
    const stampKeys = { runId: '', sequence: 0, timestamp: '' };
    const modelStart = { type: 'model_start', ...stampKeys, step: 1, attempt: 1 } as const;
    byCopy.emit({ type: 'run_start', model: 'm', prompt: 'hi' });
    inPlace.emit({ type: 'run_start', model: 'm', prompt: 'hi' });
    byCopy.emit({ type: 'model_start', step: 1, attempt: 1 });
    expect(inPlace.emitOwned(modelStart)).toBe(modelStart);
    vi.advanceTimersByTime(1001);
    byCopy.emit({ type: 'model_end', step: 1, usage, toolCalls: 0, content: 'ok' });
    inPlace.emitOwned({ type: 'model_end', ...stampKeys, step: 1, usage, toolCalls: 0, content: 'ok' });
    vi.advanceTimersByTime(2);
    byCopy.emit({ type: 'run_end', status: 'completed', steps: 1, toolCalls: 0, usage, answer: 'ok' });
    inPlace.emitOwned({
      type: 'run_end',
      ...stampKeys,
      status: 'completed',
      steps: 1,
      toolCalls: 0,
      usage,
      answer: 'ok',
    });
    expect(inPlace.emitOwned({ type: 'model_start', ...stampKeys, step: 2, attempt: 1 })).toBeUndefined();

    expect(owned).toEqual(copied);
    expect(owned.map((event) => Object.keys(event))).toEqual(copied.map((event) => Object.keys(event)));
    expect(owned.map((event) => JSON.stringify(event))).toEqual(copied.map((event) => JSON.stringify(event)));
    expect(owned[2]).toMatchObject({
      runId: 'r',
      sequence: 2,
      timestamp: '2025-01-31T12:00:01.001Z',
      durationMs: 1001,
    });
    expect(owned[3]).toMatchObject({ sequence: 3, durationMs: 1003 });
  });

  it('emits run_end once and ignores everything after it', () => {
    const events: RunEvent[] = [];
    const emitter = new RunEmitter({ runId: 'r', onEvent: (event) => events.push(event) });
    expect(emitter.ended).toBe(false);
    emitter.emit({ type: 'run_end', status: 'aborted', steps: 0, toolCalls: 0, usage });
    expect(emitter.ended).toBe(true);
    expect(emitter.emit({ type: 'run_end', status: 'completed', steps: 0, toolCalls: 0, usage })).toBeUndefined();
    expect(emitter.emit({ type: 'model_start', step: 1, attempt: 1 })).toBeUndefined();
    expect(events.map((event) => [event.type, event.sequence])).toEqual([['run_end', 0]]);
  });

  it('isolates observers: a throwing one changes nothing and is reported', () => {
    const seen: string[] = [];
    const reported: [unknown, number][] = [];
    const boom = new Error('observer broke');
    const emitter = new RunEmitter({
      runId: 'r',
      onEvent: [
        (event) => seen.push(`first ${event.sequence}`),
        () => {
          throw boom;
        },
        (event) => seen.push(`third ${event.sequence}`),
      ],
      onObserverError: (error, event) => reported.push([error, event.sequence]),
    });
    const event = emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    emitter.emit({ type: 'model_start', step: 2, attempt: 1 });
    expect(event).toMatchObject({ type: 'model_start', sequence: 0 });
    expect(seen).toEqual(['first 0', 'third 0', 'first 1', 'third 1']);
    expect(reported).toEqual([
      [boom, 0],
      [boom, 1],
    ]);
  });

  it('swallows a throwing onObserverError and a throw without any hook', () => {
    const withHook = new RunEmitter({
      runId: 'r',
      onEvent: () => {
        throw new Error('a');
      },
      onObserverError: () => {
        throw new Error('b');
      },
    });
    expect(withHook.emit({ type: 'model_start', step: 1, attempt: 1 })).toMatchObject({ sequence: 0 });
    const withoutHook = new RunEmitter({
      runId: 'r',
      onEvent: () => {
        throw new Error('a');
      },
    });
    expect(withoutHook.emit({ type: 'model_start', step: 1, attempt: 1 })).toMatchObject({ sequence: 0 });
  });

  it('reports a rejecting async observer instead of leaving an unhandled rejection', async () => {
    vi.useRealTimers();
    const reported: unknown[] = [];
    const failure = new Error('async observer broke');
    const emitter = new RunEmitter({
      runId: 'r',
      onEvent: (async () => {
        throw failure;
      }) as unknown as () => void,
      onObserverError: (error) => reported.push(error),
    });
    emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reported).toEqual([failure]);
  });

  it('never throws, even for input that is not an event', () => {
    const emitter = new RunEmitter({ runId: 'r' });
    expect(emitter.emit(null as never)).toBeUndefined();
    expect(emitter.emit({ type: 'text_delta', step: 1, text: 'x' })).toMatchObject({ sequence: 0 });
  });
});
