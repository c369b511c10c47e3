import type { RunEvent, RunState } from '@bridle/protocol';

/** A fixed clock for test events: base time plus `sequence` seconds, so orders and times are exact. */
export function timeAt(second: number, base = Date.UTC(2025, 0, 31, 12, 0, 0)): string {
  return new Date(base + second * 1000).toISOString();
}

/** Builds run events for tests: `events.start(0)`, `events.model(1, 1)`, ... with exact timestamps. */
export function eventsOf(runId: string, base?: number) {
  const stamp = (sequence: number) => ({ runId, sequence, timestamp: timeAt(sequence, base) });
  const usage = { inputTokens: 10, outputTokens: 5 };
  return {
    start: (
      sequence: number,
      extra: { model?: string; sessionId?: string; resumed?: boolean; tenant?: string } = {},
    ): RunEvent => ({
      ...stamp(sequence),
      type: 'run_start',
      model: extra.model ?? 'test:model',
      prompt: 'hello',
      ...(extra.sessionId !== undefined && { sessionId: extra.sessionId }),
      ...(extra.resumed !== undefined && { resumed: extra.resumed }),
      ...(extra.tenant !== undefined && { tenant: extra.tenant }),
    }),
    modelStart: (sequence: number, step = 1): RunEvent => ({
      ...stamp(sequence),
      type: 'model_start',
      step,
      attempt: 1,
    }),
    modelEnd: (sequence: number, step = 1, content = 'ok'): RunEvent => ({
      ...stamp(sequence),
      type: 'model_end',
      step,
      durationMs: 1.5,
      usage,
      toolCalls: 1,
      content,
      response: { toolCalls: [{ id: `c${step}`, name: 'add', arguments: { a: 1, b: 2 } }] },
    }),
    toolStart: (sequence: number, step = 1): RunEvent => ({
      ...stamp(sequence),
      type: 'tool_start',
      step,
      callId: `c${step}`,
      name: 'add',
      arguments: { a: 1, b: 2 },
    }),
    toolEnd: (sequence: number, step = 1, result = '3'): RunEvent => ({
      ...stamp(sequence),
      type: 'tool_end',
      step,
      callId: `c${step}`,
      name: 'add',
      durationMs: 0.25,
      isError: false,
      result,
    }),
    end: (sequence: number, status = 'completed', state?: RunState): RunEvent => ({
      ...stamp(sequence),
      type: 'run_end',
      status,
      steps: 1,
      toolCalls: 1,
      usage,
      durationMs: 3,
      ...(status === 'completed' && { answer: 'done' }),
      ...(state !== undefined && { state }),
    }),
  };
}

/** One agent step's events (model_start, model_end, tool_start, tool_end) from `sequence` on. */
export function stepEvents(runId: string, step: number, sequence: number, base?: number): RunEvent[] {
  const events = eventsOf(runId, base);
  return [
    events.modelStart(sequence, step),
    events.modelEnd(sequence + 1, step),
    events.toolStart(sequence + 2, step),
    events.toolEnd(sequence + 3, step),
  ];
}
