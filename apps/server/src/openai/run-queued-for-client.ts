import { randomUUID } from 'node:crypto';
import type { Message } from '@bridle/protocol';
import type { RunJobSpec } from '@bridle/queue';
import type { FastifyReply } from 'fastify';
import { busy } from '../answer-run';
import { followUntilSettled, type QueuedRuns, queuedModelId, queuedRunFailure } from '../queued-runs';
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
      skill: options.agent.skill,
      runId,
      stream: options.stream,
      timeoutMs: context.config.runTimeoutMs,
      ...(instructions.length === 0
        ? {}
        : { system: systemWithInstructions(options.agent.profile.system, instructions) }),
      ...(context.config.maxCostUsd === undefined ? {} : { maxCostUsd: context.config.maxCostUsd }),
    };
    const { jobId } = await runs.queue.enqueue(spec);
    const job = await followUntilSettled(runs, { jobId, runId }, slot, options.onEvent, (error) =>
      reply.log.error({ err: error, runId }, 'following the queued run failed'),
    );
    if (!job) return { runId, status: 'aborted', error: 'the client disconnected', usage: emptyUsage() };
    if (job.state !== 'completed' || !job.result) throw queuedRunFailure(job);
    return job.result;
  } finally {
    reply.raw.off('close', onClose);
    slot.release();
  }
}

const emptyUsage = () => ({ inputTokens: 0, outputTokens: 0 });
