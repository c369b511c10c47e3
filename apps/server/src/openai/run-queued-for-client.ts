import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@bridle/events';
import type { Message } from '@bridle/protocol';
import type { RunJobSpec } from '@bridle/queue';
import type { FastifyReply } from 'fastify';
import { busy } from '../answer-run';
import { type QueuedRuns, queuedModelId, queuedRunFailure, settledOrAborted } from '../queued-runs';
import type { ServerContext } from '../server-context';
import type { ClientRunResult, RunForClientOptions } from './client-run';
import { systemWithInstructions } from './openai-input';

/**
 * A `/v1` run that a worker executes (`BRIDLE_REDIS_URL`): the conversation is enqueued with the skill the
 * model id names, followed over Redis for a streaming client, and answered from the job's result. The
 * client's `system` / `developer` instructions go with the skill's prompt as this server composes it;
 * without them the worker's own prompt applies. A client that goes away stops following (the run goes on
 * in its worker and ends in the store). A run the worker refused or failed is a 502 with its reason.
 */
export async function runQueuedForClient(
  context: ServerContext,
  runs: QueuedRuns,
  reply: FastifyReply,
  messages: Message[],
  options: RunForClientOptions,
): Promise<ClientRunResult> {
  const model = queuedModelId(runs);
  const slot = context.limiter.tryAcquire();
  if (!slot) throw busy(context);
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const runId = randomUUID();
  const { instructions } = options.input;
  try {
    const spec: RunJobSpec = {
      messages,
      model,
      skill: options.skill,
      runId,
      stream: options.stream,
      timeoutMs: context.config.runTimeoutMs,
      ...(instructions.length === 0 ? {} : { system: systemWithInstructions(options.profile.system, instructions) }),
      ...(context.config.maxCostUsd === undefined ? {} : { maxCostUsd: context.config.maxCostUsd }),
    };
    await runs.queue.enqueue(spec);
    const following = options.onEvent ? follow(runs, runId, slot, options.onEvent) : undefined;
    const job = await settledOrAborted(runs, runId, slot.signal);
    if (!job) return { runId, status: 'aborted', error: 'the client disconnected', usage: emptyUsage() };
    if (job.state !== 'completed' || !job.result) {
      slot.abort(new Error('the run failed on its worker'));
      await following;
      throw queuedRunFailure(job);
    }
    // Its worker published every event before the job completed; a stream that lost its run_end still ends.
    const timer = setTimeout(() => slot.abort(new Error('the run ended without its run_end event')), 5000);
    await following;
    clearTimeout(timer);
    return job.result;
  } finally {
    reply.raw.off('close', onClose);
    slot.release();
  }
}

const emptyUsage = () => ({ inputTokens: 0, outputTokens: 0 });

/** Hands the run's events to `onEvent` until its `run_end` (or the slot aborts). */
async function follow(
  runs: QueuedRuns,
  runId: string,
  slot: { signal: AbortSignal },
  onEvent: (event: RunEvent) => void,
): Promise<void> {
  try {
    for await (const event of runs.queue.follow(runId, { signal: slot.signal })) onEvent(event);
  } catch {
    // The slot aborted (the client left) or Redis failed: the job's result still answers.
  }
}
