import type { RunEvent } from '@bridle/protocol';

/**
 * The journal of one long finished run, for the console's 2,000-event test and its first-render bench
 * (bench/server/console-first-render.ts): a `run_start`, then steps of `model_start`, `model_end` (a few
 * lines of Markdown), `tool_start` and `tool_end` (arguments and a result of a few hundred characters), as many
 * steps as fit before `run_end` (a Markdown answer) within `count` events (1,998 of 2,000). Timestamps 10 ms apart from 2026-01-01.
 */
export function bigRunEvents(runId: string, count = 2000): RunEvent[] {
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const at = (sequence: number) => ({ runId, sequence, timestamp: new Date(base + sequence * 10).toISOString() });
  const events: RunEvent[] = [{ ...at(0), type: 'run_start', model: 'scripted:big', prompt: 'A long run' }];
  for (let step = 1; events.length + 4 < count; step++) {
    const callId = `call-${step}`;
    events.push(
      { ...at(events.length), type: 'model_start', step, attempt: 1 },
      {
        ...at(events.length + 1),
        type: 'model_end',
        step,
        durationMs: 9,
        usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.0004 },
        toolCalls: 1,
        content: `Step ${step}: looking up **k${step}** next.\n\n- the key\n- its value`,
      },
      {
        ...at(events.length + 2),
        type: 'tool_start',
        step,
        callId,
        name: 'lookup',
        arguments: { key: `k${step}`, note: 'n'.repeat(120) },
      },
      {
        ...at(events.length + 3),
        type: 'tool_end',
        step,
        callId,
        name: 'lookup',
        durationMs: 8,
        isError: false,
        result: `value ${step}: ${'v'.repeat(300)}`,
      },
    );
  }
  const steps = (events.length - 1) / 4;
  events.push({
    ...at(events.length),
    type: 'run_end',
    status: 'completed',
    steps,
    toolCalls: steps,
    usage: { inputTokens: 100 * steps, outputTokens: 20 * steps, costUsd: 0.0004 * steps },
    durationMs: events.length * 10,
    answer: 'All **done**.',
  });
  return events;
}
