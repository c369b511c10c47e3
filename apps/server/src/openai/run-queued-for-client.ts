import { newRunId } from '@bridle/core';
import type { Message } from '@bridle/protocol';
import type { RunJobSpec } from '@bridle/queue';
import type { FastifyReply } from 'fastify';
import { acquireRunSlot } from '../answer-run';
import { followUntilSettled, type QueuedRuns, queuedModelId, queuedRunFailure } from '../queued-runs';
import type { ServerContext } from '../server-context';
import { callerOf } from '../tenant-auth';
import { jobQuotas } from '../tenant-quotas';
import { watchRevokedKey } from '../watch-revoked-key';
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
  const slot = acquireRunSlot(context, callerOf(reply.request));
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const runId = newRunId();
  const caller = callerOf(reply.request);
  const { instructions } = options.input;
  // A key revoked while its stream is open: the stream is cut and this server stops following; the run goes
  // on in its worker for its tenant.
  const stopWatching = options.stream
    ? watchRevokedKey(context, caller, () => {
        reply.raw.off('close', onClose);
        slot.abort(new Error('the API key was revoked'));
        reply.raw.destroy();
      })
    : undefined;
  try {
    const spec: RunJobSpec = {
      messages,
      model,
      skill: options.agent.skill,
      runId,
      // Journaled in the run's run_start by its worker: the run is the caller's tenant's.
      tenant: caller.tenant,
      ...(caller.keyName === undefined ? {} : { by: caller.keyName }),
      ...jobQuotas(context, caller.tenant),
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
    stopWatching?.();
    reply.raw.off('close', onClose);
    slot.release();
  }
}

const emptyUsage = () => ({ inputTokens: 0, outputTokens: 0 });
