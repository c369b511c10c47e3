// Black-box conformance to SPEC "Events" and issue 3 (@bridle/events) for the RunEmitter.
import { describe, expect, it } from 'vitest';
import { RunEmitter, type RunEvent } from '../src/index';

const usage = { inputTokens: 1, outputTokens: 2 };

function emitRun(emitter: RunEmitter) {
  emitter.emit({ type: 'run_start', model: 'm' });
  emitter.emit({ type: 'model_start', step: 1, attempt: 1 });
  emitter.emit({ type: 'model_end', step: 1, usage, toolCalls: 1, content: '' });
  emitter.emit({ type: 'tool_start', step: 1, callId: 'c1', name: 't', arguments: {} });
  emitter.emit({ type: 'tool_end', step: 1, callId: 'c1', name: 't', isError: false, result: 'ok' });
  emitter.emit({ type: 'run_end', status: 'completed', steps: 1, toolCalls: 1, usage });
}

describe('SPEC: events are { type, runId, sequence, timestamp, ... }', () => {
  it('adds runId, increasing sequence and ISO timestamps', () => {
    const events: RunEvent[] = [];
    emitRun(new RunEmitter({ runId: 'run-1', onEvent: (event) => events.push(event) }));
    expect(events.map((event) => event.type)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'run_end',
    ]);
    expect(events.map((event) => event.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const event of events) {
      expect(event.runId).toBe('run-1');
      expect(new Date(event.timestamp).toISOString()).toBe(event.timestamp);
    }
  });

  it('model_end, tool_end and run_end carry a non-negative durationMs', () => {
    const events: RunEvent[] = [];
    emitRun(new RunEmitter({ runId: 'r', onEvent: (event) => events.push(event) }));
    for (const event of events) {
      if (event.type === 'model_end' || event.type === 'tool_end' || event.type === 'run_end')
        expect(event.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('run_end exactly once, always last: later emits are ignored', () => {
    const events: RunEvent[] = [];
    const emitter = new RunEmitter({ runId: 'r', onEvent: (event) => events.push(event) });
    emitRun(emitter);
    expect(emitter.ended).toBe(true);
    expect(emitter.emit({ type: 'run_end', status: 'aborted', steps: 0, toolCalls: 0, usage })).toBeUndefined();
    expect(emitter.emit({ type: 'text_delta', step: 1, text: 'late' })).toBeUndefined();
    expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('run_end');
  });

  it('a throwing observer changes nothing: others still hear every event, onObserverError hears it', () => {
    const heard: RunEvent[] = [];
    const reported: [unknown, string][] = [];
    const emitter = new RunEmitter({
      runId: 'r',
      onEvent: [
        () => {
          throw new Error('observer broke');
        },
        (event) => heard.push(event),
      ],
      onObserverError: (error, event) => {
        reported.push([(error as Error).message, event.type]);
        throw new Error('the error hook broke too');
      },
    });
    expect(() => emitRun(emitter)).not.toThrow();
    expect(heard).toHaveLength(6);
    expect(reported).toEqual(heard.map((event) => ['observer broke', event.type]));
  });
});
