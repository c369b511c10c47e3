import type { EvalVariant } from '@bridle/evals';
import type { Store } from '@bridle/protocol';
import type { RunJobSpec, RunQueue } from '@bridle/queue';
import type { EvalFlags } from './eval-flags';

/**
 * A variant whose cases run on `bridle worker`s: each case is enqueued as a job whose id is the case's run id
 * (so a resumed eval follows a job still queued instead of adding another), awaited, and read back from the
 * store the workers journal to. The worker holds the keys and the tools; the job names the model and skill.
 */
export function queuedVariant(
  name: string,
  target: { modelId: string; skill?: string },
  flags: EvalFlags,
  queue: RunQueue,
  store: Store,
): EvalVariant {
  return {
    name,
    async run({ testCase, runId, signal }) {
      const limits = testCase.limits ?? {};
      const maxSteps = limits.maxSteps ?? flags.maxSteps;
      const maxToolCalls = limits.maxToolCalls ?? flags.maxToolCalls;
      const timeoutMs = limits.timeoutMs ?? flags.timeout;
      const maxCostUsd = limits.maxCostUsd ?? flags.maxCost;
      const spec: RunJobSpec = {
        ...(typeof testCase.input === 'string' ? { prompt: testCase.input } : { messages: testCase.input }),
        model: target.modelId,
        ...(target.skill === undefined ? {} : { skill: target.skill }),
        ...(flags.system === undefined ? {} : { system: flags.system }),
        ...(maxSteps === undefined ? {} : { maxSteps }),
        ...(maxToolCalls === undefined ? {} : { maxToolCalls }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
        runId,
      };
      await queue.enqueue(spec);
      const job = await queue.settled(runId, { signal });
      if (signal.aborted) throw signal.reason;
      if (job.state !== 'completed')
        throw new Error(`job ${runId} ${job.state}${job.failedReason === undefined ? '' : `: ${job.failedReason}`}`);
      const stored = await store.readRun(runId);
      return {
        runId,
        events: stored?.events ?? [],
        ...(job.result?.output === undefined ? {} : { output: job.result.output }),
      };
    },
  };
}
