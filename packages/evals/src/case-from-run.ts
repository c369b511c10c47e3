import type { RunEvent, StoredRun } from '@bridle/protocol';
import { evalRunFromEvents } from './eval-run-from-events';
import type { EvalCase } from './types';

/**
 * A recorded run as a case (`bridle eval --from-runs`): its id is the run id, its input the run's first
 * prompt or messages, and its expectations what the run did: the answer (when it completed) and its own tool
 * calls with their arguments, in order (`toolsOrder: 'exact'`). Returns a sentence saying why when the run
 * cannot be a case (no recorded start, or still running).
 */
export function caseFromRun(run: StoredRun): EvalCase | string {
  const start = run.events.find(
    (event): event is Extract<RunEvent, { type: 'run_start' }> =>
      event.type === 'run_start' && event.runId === run.runId && event.parentRunId === undefined,
  );
  if (start === undefined || (start.prompt === undefined && start.messages === undefined))
    return `run ${run.runId} has no recorded start (prompt or messages)`;
  if (run.status === 'running') return `run ${run.runId} has not ended`;
  const recorded = evalRunFromEvents(run.runId, 'recorded', run.events);
  return {
    id: run.runId,
    input: start.messages ?? (start.prompt as string),
    expected: {
      ...(recorded.status === 'completed' && recorded.answer !== undefined ? { answer: recorded.answer } : {}),
      tools: recorded.calls.map((call) => ({ name: call.name, arguments: call.arguments })),
      toolsOrder: 'exact',
    },
    tags: ['from-run', `status:${run.status}`],
  };
}
