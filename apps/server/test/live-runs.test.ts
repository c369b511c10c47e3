import type { RunEvent } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { LiveRuns } from '../src/live-runs';

const at = (sequence: number, runId = 'run-1') => ({ runId, sequence, timestamp: '2026-01-01T00:00:00.000Z' });
const usage = { inputTokens: 1, outputTokens: 1 };

describe('LiveRuns', () => {
  it("gives a follower the segment's events so far, then the new ones, and ends it at run_end", () => {
    const live = new LiveRuns();
    const observe = live.observer('run-1', 'default');
    expect(live.follow('run-1', { event: () => {}, end: () => {} })).toBeUndefined();
    observe({ ...at(0), type: 'run_start', model: 'm' } as RunEvent);
    const seen: number[] = [];
    let ended = false;
    const follower = live.follow('run-1', { event: (event) => seen.push(event.sequence), end: () => (ended = true) });
    expect(follower?.events.map((event) => event.sequence)).toEqual([0]);
    // A sub-agent's events reach the parent's observers with parentRunId: they are not this run's.
    observe({ ...at(0, 'child'), parentRunId: 'run-1', type: 'model_start', step: 1, attempt: 1 } as RunEvent);
    observe({ ...at(1), type: 'model_start', step: 1, attempt: 1 } as RunEvent);
    observe({
      ...at(2),
      type: 'run_end',
      status: 'completed',
      steps: 1,
      toolCalls: 0,
      usage,
      durationMs: 1,
    } as RunEvent);
    expect(seen).toEqual([1, 2]);
    expect(ended).toBe(true);
    expect(live.has('run-1')).toBe(false);
  });

  it('keeps its followers from one segment to the next; a follower that stopped gets nothing more', () => {
    const live = new LiveRuns();
    const observe = live.observer('run-1', 'default');
    observe({ ...at(0), type: 'run_start', model: 'm' } as RunEvent);
    const kept: number[] = [];
    const stopped: number[] = [];
    live.follow('run-1', { event: (event) => kept.push(event.sequence), end: () => kept.push(-1) });
    const leaving = live.follow('run-1', {
      event: (event) => stopped.push(event.sequence),
      end: () => stopped.push(-1),
    });
    observe({ ...at(1), type: 'model_start', step: 1, attempt: 1 } as RunEvent);
    leaving?.stop();
    // A new segment's run_start (a resumed run) starts its event list again; the followers stay.
    observe({ ...at(2), type: 'run_start', model: 'm' } as RunEvent);
    expect(live.follow('run-1', { event: () => {}, end: () => {} })?.events.map((event) => event.sequence)).toEqual([
      2,
    ]);
    live.settle('run-1');
    expect(kept).toEqual([1, 2, -1]);
    expect(stopped).toEqual([1]);
  });

  it('ends the followers of a segment that settled without run_end', () => {
    const live = new LiveRuns();
    live.observer('run-1', 'default')({ ...at(0), type: 'run_start', model: 'm' } as RunEvent);
    let ended = false;
    live.follow('run-1', { event: () => {}, end: () => (ended = true) });
    live.settle('run-1');
    expect(ended).toBe(true);
    expect(live.has('run-1')).toBe(false);
  });
});
