import type { RunJobSpec } from './job-spec';
import type { QueuedJob, RunQueue } from './run-queue';

/** Specs enqueued per `enqueueMany` call (abort is checked between chunks). */
const SUBMIT_CHUNK = 1000;

/** Options of {@link submitAll}. */
export interface SubmitAllOptions {
  /** Called exactly once per spec, as soon as its job is `completed` or `failed` (completion order). */
  onSettled(job: QueuedJob, index: number): void;
  /** Stops watching (jobs already enqueued stay in the queue; a rerun with the same run ids picks them up). */
  signal?: AbortSignal;
  /** How often every unsettled job is checked besides the queue's events, in ms; default 1000. */
  pollMs?: number;
  /** Called when a job Redis no longer knows (its data was lost) is enqueued again. */
  onRequeued?: (runId: string) => void;
}

/**
 * Enqueues every spec (each `runId`, default a new one, is its job id; `enqueueMany`, so a round trip per
 * thousand specs) and watches them until each settled
 * once: from the queue's events as they happen, and by checking every unsettled job every `pollMs`. A job
 * Redis lost (a restart without persistence) is enqueued again under the same run id: a worker resumes its
 * journaled run, or just reports it if it ended, so no item is run twice or lost. Resolves when all
 * settled, or when `signal` aborts.
 */
export async function submitAll(
  queue: RunQueue,
  specs: readonly RunJobSpec[],
  options: SubmitAllOptions,
): Promise<void> {
  const pending = new Map<string, { spec: RunJobSpec; index: number }>();
  const { signal } = options;
  let wake: () => void = () => {};
  const handle = async (job: QueuedJob) => {
    const entry = pending.get(job.jobId);
    if (!entry) return;
    if (job.state === 'completed' || job.state === 'failed') {
      pending.delete(job.jobId);
      options.onSettled(job, entry.index);
      if (pending.size === 0) wake();
    } else if (job.state === 'missing') {
      options.onRequeued?.(job.jobId);
      await queue.enqueue(entry.spec);
    }
  };
  let failure: unknown;
  const stop = await queue.onSettled((jobId) => {
    if (pending.has(jobId))
      void queue
        .job(jobId)
        .then(handle)
        .catch((error: unknown) => {
          failure ??= error;
          wake();
        });
  });
  const onAbort = () => wake();
  signal?.addEventListener('abort', onAbort);
  try {
    // A round trip per chunk (BullMQ's addBulk), not per spec: 100,000 items are 100 round trips.
    for (let start = 0; start < specs.length; start += SUBMIT_CHUNK) {
      if (signal?.aborted) return;
      const chunk = specs.slice(start, start + SUBMIT_CHUNK);
      const added = await queue.enqueueMany(chunk);
      for (const [offset, { runId }] of added.entries())
        pending.set(runId, { spec: { ...(chunk[offset] as RunJobSpec), runId }, index: start + offset });
    }
    const pollMs = options.pollMs ?? 1000;
    while (pending.size > 0 && !signal?.aborted && failure === undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const ids = [...pending.keys()];
      for (let start = 0; start < ids.length && !signal?.aborted; start += 500) {
        const chunk = ids.slice(start, start + 500);
        const states = await Promise.all(chunk.map((id) => queue.queue.getJobState(id)));
        for (const [offset, state] of states.entries()) {
          if (state === 'completed' || state === 'failed' || state === 'unknown')
            await handle(await queue.job(chunk[offset] as string));
        }
      }
    }
    if (failure !== undefined) throw failure;
  } finally {
    stop();
    signal?.removeEventListener('abort', onAbort);
  }
}
