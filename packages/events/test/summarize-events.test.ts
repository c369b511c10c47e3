import { describe, expect, it } from 'vitest';
import { summarizeEvents } from '../src/summarize-events';
import { isRunEventType, RUN_EVENT_TYPES, type RunEvent } from '../src/types';
import { sampleRun } from './test-events';

describe('summarizeEvents', () => {
  it('sums steps, tokens, tool calls, errors and durations', () => {
    expect(summarizeEvents(sampleRun)).toEqual({
      runIds: ['r1'],
      status: 'completed',
      steps: 2,
      toolCalls: 2,
      modelErrors: 1,
      retries: 1,
      usage: { inputTokens: 30, outputTokens: 7 },
      durationMs: 1501,
      tools: { add: { calls: 2, errors: 1, totalDurationMs: 4, meanDurationMs: 2 } },
    });
  });

  it('summarizes nothing as zeros', () => {
    const summary = summarizeEvents([]);
    expect(summary).toEqual({
      runIds: [],
      steps: 0,
      toolCalls: 0,
      modelErrors: 0,
      retries: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
      tools: {},
    });
    expect(summary.status).toBeUndefined();
  });

  it('adds up several runs, keeps the last status and error, and any tool name is a safe key', () => {
    const second: RunEvent[] = [
      {
        type: 'tool_start',
        runId: 'r2',
        sequence: 0,
        timestamp: 't',
        step: 1,
        callId: 'x',
        name: '__proto__',
        arguments: {},
      },
      {
        type: 'tool_end',
        runId: 'r2',
        sequence: 1,
        timestamp: 't',
        step: 1,
        callId: 'x',
        name: '__proto__',
        durationMs: 5,
        isError: true,
        result: 'Unknown tool: __proto__',
      },
      {
        type: 'run_end',
        runId: 'r2',
        sequence: 2,
        timestamp: 't',
        status: 'timeout',
        steps: 0,
        toolCalls: 1,
        usage: { inputTokens: 0, outputTokens: 0 },
        durationMs: 99,
        error: 'The run timed out after 99ms',
      },
    ];
    const summary = summarizeEvents([...sampleRun, ...second]);
    expect(summary.runIds).toEqual(['r1', 'r2']);
    expect(summary.status).toBe('timeout');
    expect(summary.error).toBe('The run timed out after 99ms');
    expect(summary.toolCalls).toBe(3);
    expect(summary.durationMs).toBe(1600);
    expect(Object.keys(summary.tools)).toEqual(['add', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(summary.tools, '__proto__')?.value).toEqual({
      calls: 1,
      errors: 1,
      totalDurationMs: 5,
      meanDurationMs: 5,
    });
  });

  it('gives a mean of 0 for a tool that started but never ended', () => {
    const events = sampleRun.slice(0, 6);
    expect(summarizeEvents(events).tools).toEqual({
      add: { calls: 1, errors: 0, totalDurationMs: 0, meanDurationMs: 0 },
    });
  });
});

describe('RUN_EVENT_TYPES', () => {
  it('lists the event types and recognizes them', () => {
    expect(RUN_EVENT_TYPES).toEqual([
      'run_start',
      'model_start',
      'text_delta',
      'model_end',
      'model_error',
      'tool_start',
      'tool_end',
      'approval_requested',
      'approval_decided',
      'input',
      'run_end',
    ]);
    expect(isRunEventType('tool_end')).toBe(true);
    expect(isRunEventType('approval_decided')).toBe(true);
    expect(isRunEventType('tool_finish')).toBe(false);
    expect(isRunEventType(3)).toBe(false);
  });
});
