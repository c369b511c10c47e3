import type { EvalVariant, Scorer } from '@bridle/evals';
import type { RunEvent, StoredRun, Tool } from '@bridle/protocol';
import { replayModel } from '@bridle/testing';
import { recordedDecisions } from '../recorded-decisions';
import { firstDivergence, runOutcome, toolOutcomes } from '../replay-divergence';
import { replayTools } from './replay-action';

type RunStart = Extract<RunEvent, { type: 'run_start' }>;

/**
 * The `--replay` variant: each case (a recorded run) runs against its own recorded model responses, with
 * the tools of the flags (read-only ones run for real; the others, and tools the flags lack, serve their
 * recorded results), its recorded system prompt, as many steps as it took, and its recorded denials denied
 * again. No model is called.
 */
export function replayVariant(runs: ReadonlyMap<string, StoredRun>, available: readonly Tool[]): EvalVariant {
  return {
    name: 'replay',
    agent: { model: replayModel([]), retry: { maxRetries: 0 } },
    forCase(testCase) {
      const run = runs.get(testCase.id) as StoredRun;
      const recordedTools = toolOutcomes(run.events, run.runId);
      const start = run.events.find(
        (event): event is RunStart => event.type === 'run_start' && event.runId === run.runId,
      );
      const recordedSteps =
        runOutcome(run.events, run.runId)?.steps ?? run.events.filter((event) => event.type === 'model_end').length;
      // Calls the run's approve hook denied are denied again (a run that paused for a person is compared as it
      // is: the replay does not resume it, so it differs at the pause; bridle replay <id> replays those).
      const denied = recordedDecisions(run.events, run.runId).deniedInRun;
      return {
        model: replayModel(run.events),
        tools: replayTools(available, recordedTools, run.events, run.runId).tools,
        ...(start?.system === undefined ? {} : { system: start.system }),
        maxSteps: Math.max(1, recordedSteps),
        approve: (call) => !denied.has(call.id),
      };
    },
  };
}

/** The `replay` scorer: 1 when the replay did what the recording did, else 0 naming the first difference. */
export function replayScorer(runs: ReadonlyMap<string, StoredRun>): Scorer {
  return {
    name: 'replay',
    score(run, testCase) {
      const recorded = runs.get(testCase.id);
      if (recorded === undefined) return undefined;
      const divergence = firstDivergence(
        { tools: toolOutcomes(recorded.events, recorded.runId), outcome: runOutcome(recorded.events, recorded.runId) },
        {
          tools: toolOutcomes(run.events, run.runId),
          outcome: {
            status: run.status,
            steps: run.steps,
            toolCalls: run.toolCalls,
            ...(run.answer === undefined ? {} : { answer: run.answer }),
          },
        },
      );
      return divergence === undefined
        ? { score: 1, reason: 'the replay matches the recording' }
        : { score: 0, reason: `the replay differs: ${divergence}` };
    },
  };
}
