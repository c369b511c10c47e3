import { newRunId } from '@bridle/core';
import type { JobDecision, RunJobSpec } from '@bridle/queue';
import type { FastifyReply } from 'fastify';
import { acquireRunSlot } from '../answer-run';
import { followUntilSettled, type QueuedRuns, queuedModelId, queuedRunFailure } from '../queued-runs';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { jobQuotas } from '../tenant-quotas';
import { watchRevokedKey } from '../watch-revoked-key';
import type { SessionTurnOptions } from './session-turn';
import type { TurnResult } from './turn-result';

/**
 * One turn of a protocol face (`/api/ui/chat`, `/a2a`) that a worker executes (`BRIDLE_REDIS_URL`), the way
 * `/api/chat` and `POST /api/runs/:id/approvals` enqueue theirs: the session is saved first (the worker
 * continues it by id from the shared store and saves its new transcript), the job carries the tenant, the key's
 * name, the tenant's quotas and the model id without credentials, and the run's events come back over Redis to
 * `observe` (a resumed run's from its new segment on). A paused run is marked on the session. A run the worker
 * refused or failed throws (502, or 409 `run_busy` for decisions another decision beat). The caller's client
 * going away, or its key revoked (`onRevoked`), stops the following: the run goes on in its worker for its
 * tenant, and the result says `aborted` here.
 */
export async function runQueuedTurn(
  context: ServerContext,
  runs: QueuedRuns,
  reply: FastifyReply,
  options: SessionTurnOptions,
): Promise<TurnResult> {
  const { session, turn, caller } = options;
  const model = queuedModelId(runs);
  const resume = turn.kind === 'resume' ? await resumeOf(context, turn.runId, turn.approvals) : undefined;
  const slot = acquireRunSlot(context, caller, reply.raw.socket ?? undefined);
  context.busySessions.add(session.id);
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const onRevoked = options.onRevoked;
  const stopWatching = onRevoked
    ? watchRevokedKey(context, caller, () => {
        reply.raw.off('close', onClose);
        slot.abort(new Error('the API key was revoked'));
        onRevoked();
      })
    : undefined;
  const runId = turn.kind === 'resume' ? turn.runId : (options.runId ?? newRunId());
  const skill = options.skill ?? session.skill;
  try {
    const { pendingRunId: _decided, ...rest } = session;
    await context.sessions.set({ ...rest, updatedAt: Date.now(), ...(skill === undefined ? {} : { skill }) });
    const spec: RunJobSpec = {
      ...(turn.kind === 'prompt' ? { prompt: turn.prompt } : { approvals: resume?.approvals }),
      model,
      // The worker saves the session's transcript after the run.
      sessionId: session.id,
      runId,
      // Journaled in the run's run_start by its worker: the run is the caller's tenant's.
      tenant: caller.tenant,
      ...(caller.keyName === undefined ? {} : { by: caller.keyName }),
      // The worker holds each model call to the tenant's quotas, counted with the servers'.
      ...jobQuotas(context, caller.tenant),
      stream: true,
      timeoutMs: context.config.runTimeoutMs,
      ...(skill === undefined ? {} : { skill }),
      ...(context.config.maxCostUsd === undefined ? {} : { maxCostUsd: context.config.maxCostUsd }),
    };
    const { jobId } = await runs.queue.enqueue(spec);
    const job = await followUntilSettled(
      runs,
      { jobId, runId, ...(resume === undefined ? {} : { fromSequence: resume.fromSequence }) },
      slot,
      options.observe,
      (error) => reply.log.error({ err: error, runId }, 'following the queued run failed'),
    );
    if (!job) {
      const reason = slot.signal.reason instanceof Error ? slot.signal.reason.message : 'the client went away';
      return { runId, status: 'aborted', error: reason, steps: 0, toolCalls: 0, usage: emptyUsage() };
    }
    if (job.state !== 'completed' || !job.result) throw queuedRunFailure(job);
    const result = job.result;
    if (result.status === 'awaiting_approval') {
      const saved = await context.sessions.get(session.id);
      if (saved) await context.sessions.set({ ...saved, pendingRunId: runId, updatedAt: Date.now() });
    }
    reply.log.info({ runId, status: result.status, steps: result.steps }, 'queued run ended');
    return result;
  } finally {
    stopWatching?.();
    reply.raw.off('close', onClose);
    context.busySessions.delete(session.id);
    slot.release();
  }
}

/** A paused run's decisions as a job carries them, and the first sequence of the segment its worker writes. */
async function resumeOf(
  context: ServerContext,
  runId: string,
  approvals: Record<string, JobDecision>,
): Promise<{ approvals: Record<string, JobDecision>; fromSequence: number }> {
  const run = await context.store.readRun(runId);
  if (!run) throw new ServerError('not_found', `Run ${runId} does not exist here.`);
  return { approvals, fromSequence: (run.events.at(-1)?.sequence ?? -1) + 1 };
}

const emptyUsage = () => ({ inputTokens: 0, outputTokens: 0 });
