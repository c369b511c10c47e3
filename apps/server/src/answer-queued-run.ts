import { newRunId } from '@bridle/core';
import type { JobDecision, RunJobSpec } from '@bridle/queue';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DetachedRunResponse } from './answer-detached-run';
import { acquireRunSlot, type ChatResponse } from './answer-run';
import { chatEventStream, wantsEventStream } from './chat-event-stream';
import { followUntilSettled, type QueuedRuns, queuedModelId, queuedRunFailure } from './queued-runs';
import type { RunSlot } from './run-limiter';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Session } from './session-store';
import { callerOf } from './tenant-auth';
import { jobQuotas } from './tenant-quotas';

/** What `/api/chat` (a prompt) or `POST /api/runs/:id/approvals` (decisions) asks of a queued run. */
export interface QueuedChat {
  session: Session;
  /** A new run on the session, with this prompt; or `resume`. */
  prompt?: string;
  /** Decisions on paused run `runId`: a worker resumes it; its new segment starts at `fromSequence`. */
  resume?: { runId: string; approvals: Record<string, JobDecision>; fromSequence: number };
  /** False for a session that no longer exists (a paused run's deleted session): it is not saved again. */
  saveSession?: boolean;
  /** The skill the client named (a worker offers it, or refuses the run); else the worker's default. */
  skill?: string;
  maxSteps?: number;
}

/**
 * Answers `/api/chat` (or `POST /api/runs/:id/approvals`) with a run that a worker executes
 * (`BRIDLE_REDIS_URL`): the session is saved first (the worker continues it by id from the shared store and
 * saves its new transcript), the run is enqueued, and its events come back from the worker over Redis: as
 * SSE frames ending with `run_end`, or as the JSON answer once the job settled. A run the worker refused or
 * failed is a 502 with its reason; decisions another decision beat are a 409 (`run_busy`). A client that
 * goes away stops following; the run goes on and its answer lands in the session. Holds a run slot (503 when
 * full) and the session (a second prompt on it at once, on this server, is a 409) while it follows.
 * `detached` (`Prefer: respond-async` on decisions): answers 202 `{ runId, sessionId, status: "running" }` once the
 * job is enqueued and follows it for the server, not the request; calls `onSettled` once, whatever happens.
 */
export async function answerQueuedRun(
  context: ServerContext,
  runs: QueuedRuns,
  request: FastifyRequest,
  reply: FastifyReply,
  chat: QueuedChat,
  detached?: { onSettled: () => void },
): Promise<ChatResponse | DetachedRunResponse | FastifyReply> {
  const { session } = chat;
  const caller = callerOf(request);
  let slot: RunSlot;
  let model: string;
  try {
    model = queuedModelId(runs);
    if (context.busySessions.has(session.id)) {
      throw new ServerError('session_busy', `Session ${session.id} is already running a prompt: wait for its answer.`);
    }
    slot = acquireRunSlot(context, caller);
  } catch (error) {
    detached?.onSettled();
    throw error;
  }
  context.busySessions.add(session.id);
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  // A detached run is followed for the server (to keep a pause's run id in the session), not for the request.
  if (detached === undefined) reply.raw.once('close', onClose);
  const runId = chat.resume?.runId ?? newRunId();
  const saveSession = chat.saveSession !== false;
  const streaming = detached === undefined && wantsEventStream(request.headers.accept);
  let stopWatching: (() => void) | undefined;
  const release = () => {
    stopWatching?.();
    reply.raw.off('close', onClose);
    context.busySessions.delete(session.id);
    slot.release();
    detached?.onSettled();
  };
  let following = false;
  try {
    if (saveSession) {
      const { pendingRunId: _decided, ...rest } = session;
      await context.sessions.set({
        ...rest,
        updatedAt: Date.now(),
        ...(chat.skill === undefined ? {} : { skill: chat.skill }),
      });
    }
    const spec: RunJobSpec = {
      ...(chat.resume === undefined ? { prompt: chat.prompt } : { approvals: chat.resume.approvals }),
      model,
      // The worker saves the session's transcript after the run.
      ...(saveSession ? { sessionId: session.id } : {}),
      runId,
      // Journaled in the run's run_start by its worker: the run is the caller's tenant's.
      tenant: caller.tenant,
      ...(caller.keyName === undefined ? {} : { by: caller.keyName }),
      // The worker holds each model call to the tenant's quotas, counted with the servers'.
      ...jobQuotas(context, caller.tenant),
      stream: streaming,
      timeoutMs: context.config.runTimeoutMs,
      ...(chat.skill === undefined ? {} : { skill: chat.skill }),
      ...(chat.maxSteps === undefined ? {} : { maxSteps: chat.maxSteps }),
      // The server's per-run budget (--max-cost); a worker with a smaller one applies its own.
      ...(context.config.maxCostUsd === undefined ? {} : { maxCostUsd: context.config.maxCostUsd }),
    };
    const { jobId } = await runs.queue.enqueue(spec);
    if (detached !== undefined) {
      following = true;
      followQueuedRun(context, runs, request, undefined, { chat, jobId, runId, saveSession, slot })
        .catch((error: unknown) =>
          request.log.error({ err: error, runId }, 'the queued run detached from its request failed'),
        )
        .finally(release);
      reply.code(202).header('preference-applied', 'respond-async');
      return { runId, sessionId: session.id, status: 'running' };
    }
    const events = streaming
      ? chatEventStream(context, request, reply, session.id, () =>
          slot.abort(new Error('the client reads the event stream too slowly')),
        )
      : undefined;
    // A key revoked while its stream is open: the stream ends and this server stops following; the run
    // goes on in its worker for its tenant (its transcript lands in the session as usual).
    stopWatching = events
      ? context.auth.onChange(() => {
          if (context.auth.isValid(caller)) return;
          reply.raw.off('close', onClose);
          slot.abort(new Error('the API key was revoked'));
          if (events.sse) events.sse.end();
          else reply.raw.destroy();
        })
      : undefined;
    const result = await followQueuedRun(context, runs, request, events, { chat, jobId, runId, saveSession, slot });
    if (events?.sse) {
      events.sse.end();
      return reply;
    }
    return result ?? reply;
  } finally {
    if (!following) release();
  }
}

/**
 * Follows an enqueued run until its job settles: its events to `events` (SSE) when given, a pause's run id kept
 * in the session. Resolves with the JSON answer (undefined when the following stopped: the client went away, or
 * the stream ended); throws the 502 of a run its worker refused or failed (logged instead once a stream started).
 */
async function followQueuedRun(
  context: ServerContext,
  runs: QueuedRuns,
  request: FastifyRequest,
  events: ReturnType<typeof chatEventStream> | undefined,
  queued: { chat: QueuedChat; jobId: string; runId: string; saveSession: boolean; slot: RunSlot },
): Promise<ChatResponse | undefined> {
  const { chat, jobId, runId, saveSession, slot } = queued;
  const { session } = chat;
  const job = await followUntilSettled(
    runs,
    { jobId, runId, ...(chat.resume === undefined ? {} : { fromSequence: chat.resume.fromSequence }) },
    slot,
    events?.observe,
    (error) => request.log.error({ err: error, runId }, 'following the queued run failed'),
  );
  if (!job) return undefined;
  if (job.state !== 'completed' || !job.result) {
    if (!events?.sse) throw queuedRunFailure(job);
    request.log.error({ runId, reason: job.failedReason }, 'the queued run failed after its event stream started');
    return undefined;
  }
  const result = job.result;
  const paused = result.status === 'awaiting_approval';
  if (paused && saveSession) {
    const saved = await context.sessions.get(session.id);
    if (saved) await context.sessions.set({ ...saved, pendingRunId: runId, updatedAt: Date.now() });
  }
  request.log.info({ runId, status: result.status, steps: result.steps }, 'queued run ended');
  return {
    ...(result.answer === undefined ? {} : { answer: result.answer }),
    status: result.status,
    runId,
    sessionId: session.id,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(paused ? { pendingApprovals: result.pendingApprovals ?? [] } : {}),
  };
}
