import type { RunJobSpec } from './job-spec';
import type { QueuedJob, RunQueue } from './run-queue';

/** Options of {@link submitAll}. */
export interface SubmitAllOptions {
  /** Called exactly once per spec, as soon as its job is `completed` or `failed` (completion order). */
  onSettled(job: QueuedJob, index: number): void;
  /** Stops watching (jobs already enqueued stay in the queue; a rerun with the same run ids picks them up). */
  signal?: AbortSignal;
  /** How often unsettled jobs are checked, in ms; default 100. */
  pollMs?: number;
  /** Called when a job Redis no longer knows (its data was lost) is enqueued again. */
  onRequeued?: (runId: string) => void;
}

/**
 * Enqueues every spec (each needs a `runId`: it is the job id) and watches them until each settled once.
 * A job Redis lost (a restart without persistence) is enqueued again under the same run id: a worker
 * resumes its journaled run, or just reports it if it ended, so no item is run twice or lost. Resolves
 * when all settled, or when `signal` aborts.
 */
export async function submitAll(
  queue: RunQueue,
  specs: readonly RunJobSpec[],
  options: SubmitAllOptions,
): Promise<void> {
  const pending = new Map<string, { spec: RunJobSpec; index: number }>();
  for (const [index, spec] of specs.entries()) {
    if (options.signal?.aborted) return;
    const { runId } = await queue.enqueue(spec);
    pending.set(runId, { spec: { ...spec, runId }, index });
  }
  const pollMs = options.pollMs ?? 100;
  while (pending.size > 0 && !options.signal?.aborted) {
    const ids = [...pending.keys()];
    for (let start = 0; start < ids.length; start += 200) {
      const jobs = await Promise.all(ids.slice(start, start + 200).map((id) => queue.job(id)));
      for (const job of jobs) {
        const entry = pending.get(job.jobId);
        if (!entry) continue;
        if (job.state === 'completed' || job.state === 'failed') {
          pending.delete(job.jobId);
          options.onSettled(job, entry.index);
        } else if (job.state === 'missing') {
          options.onRequeued?.(job.jobId);
          await queue.enqueue(entry.spec);
        }
      }
    }
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
