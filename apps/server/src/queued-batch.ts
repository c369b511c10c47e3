import type { BatchResult } from '@bridle/batch';
import { newRunId } from '@bridle/core';
import type { JobQuotas, QueuedJob } from '@bridle/queue';
import type { BatchJob } from './batch-jobs';
import { type QueuedRuns, queuedModelId } from './queued-runs';
import type { BatchBody, BatchItemBody } from './schemas';
import type { ServerConfig } from './server-config';

function itemId(item: BatchItemBody, index: number): string {
  return item.id === undefined ? String(index) : String(item.id);
}

/** A settled job as the in-process batch reports its item. */
function toResult(job: QueuedJob, item: BatchItemBody, index: number): BatchResult {
  const durationMs = Math.max(0, (job.finishedAt ?? Date.now()) - (job.startedAt ?? job.enqueuedAt ?? Date.now()));
  const base = { index, id: itemId(item, index), attempts: Math.max(1, job.attemptsMade), durationMs };
  const result = job.state === 'completed' ? job.result : undefined;
  if (!result) {
    return {
      ...base,
      status: 'error',
      error: `failed on a worker: ${job.failedReason ?? `its job is ${job.state}`}`,
      steps: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      runId: job.runId,
    };
  }
  return {
    ...base,
    status: result.status,
    ...(result.answer === undefined ? {} : { answer: result.answer }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.output === undefined ? {} : { output: result.output }),
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
    runId: result.runId,
  };
}

/**
 * Runs a batch job's items through the queue (`BRIDLE_REDIS_URL`): every item is enqueued at once (workers
 * share them out) and reported when its job settles, in `job.results` and `job.progress` as the in-process
 * batch does. Cancelling (the job's signal) removes the items no worker has taken yet and reports the
 * unfinished ones as `aborted`; items a worker already runs finish there (their runs are in the store).
 */
export async function runQueuedBatch(
  runs: QueuedRuns,
  config: ServerConfig,
  job: BatchJob,
  body: BatchBody,
  by: string | undefined,
  quotas: { quotas?: JobQuotas },
): Promise<void> {
  const model = queuedModelId(runs);
  const specs = body.items.map((item) => {
    const maxSteps = item.maxSteps ?? body.maxSteps;
    return {
      prompt: item.prompt,
      model,
      runId: newRunId(),
      // Journaled in the run's run_start by its worker: the run is the job's tenant's.
      tenant: job.tenant,
      ...(by === undefined ? {} : { by }),
      ...quotas,
      timeoutMs: config.runTimeoutMs,
      ...(body.skill === undefined ? {} : { skill: body.skill }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(config.maxCostUsd === undefined ? {} : { maxCostUsd: config.maxCostUsd }),
    };
  });
  const total = specs.length;
  const update = () => {
    const done = job.results.filter((result) => result !== undefined) as BatchResult[];
    const succeeded = done.filter((result) => result.status === 'completed').length;
    const aborted = done.filter((result) => result.status === 'aborted').length;
    job.progress = {
      total,
      done: done.length,
      succeeded,
      failed: done.length - succeeded - aborted,
      aborted,
      running: total - done.length,
      pending: 0,
      retries: 0,
    };
  };
  const signal = job.controller.signal;
  // Loaded here, as the queue itself is (queued-runs.ts): a server without Redis never loads BullMQ.
  const { submitAll } = await import('@bridle/queue');
  await submitAll(runs.queue, specs, {
    signal,
    onSettled: (settled, index) => {
      job.results[index] = toResult(settled, body.items[index] as BatchItemBody, index);
      update();
    },
  });
  if (!signal.aborted) return;
  for (const [index, spec] of specs.entries()) {
    if (job.results[index] !== undefined) continue;
    // A job no worker took yet is removed; one that runs (locked) stays and finishes in its worker.
    await runs.queue.queue.remove(spec.runId).catch(() => 0);
    const item = body.items[index] as BatchItemBody;
    job.results[index] = {
      index,
      id: itemId(item, index),
      status: 'aborted',
      error: 'the batch job was cancelled before this item finished',
      attempts: 0,
      steps: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      runId: spec.runId,
      durationMs: 0,
    };
  }
  update();
}
