import type { AgentResult, BudgetOptions } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import type { Store } from '@bridle/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chatEventStream, wantsEventStream } from './chat-event-stream';
import { runJournal } from './run-journal';
import type { RunSlot } from './run-limiter';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Session } from './session-store';
import { type Caller, callerOf } from './tenant-auth';

/** The JSON answer of `POST /api/chat` and `POST /api/runs/:id/approvals`. */
export interface ChatResponse {
  answer?: string;
  /** `completed`, ..., or `awaiting_approval` (decide `pendingApprovals` with `POST /api/runs/:runId/approvals`). */
  status: string;
  runId: string;
  sessionId: string;
  steps: number;
  toolCalls: number;
  usage: { inputTokens: number; outputTokens: number };
  error?: string;
  /** The calls waiting for a person's decision (status `awaiting_approval`), with their recorded arguments. */
  pendingApprovals?: { callId: string; name: string; arguments: unknown; digest?: string }[];
}

/** How the route starts (or continues) its run, given what the server wires in. */
export type ExecuteRun = (wiring: {
  /** The run's id when it is given (a resumed run); undefined for a new run (`runAgent` makes it). */
  runId: string | undefined;
  store: Store;
  signal: AbortSignal;
  stream: boolean;
  onEvent: EventObserver[];
  /** The run's budget with its tenant's quota gate. */
  budget: BudgetOptions | undefined;
}) => Promise<AgentResult>;

/** The 503 of a full server. */
/**
 * A run slot for a request of `caller`'s tenant: throws {@link busy} (503) when every slot is taken, and 429
 * `quota_exceeded` when the tenant holds its share (`BRIDLE_MAX_RUNS_PER_TENANT`).
 */
export function acquireRunSlot(context: ServerContext, caller: Caller, connection?: object): RunSlot {
  const slot = context.limiter.tryAcquireFor(caller.tenant, context.config.maxRunsPerTenant, connection);
  if (slot === 'full') throw busy(context);
  if (slot === 'tenant') {
    throw new ServerError(
      'quota_exceeded',
      `Tenant ${caller.tenant} is running its maximum of ${context.config.maxRunsPerTenant} runs at once (BRIDLE_MAX_RUNS_PER_TENANT): retry shortly.`,
      { retryAfterSeconds: 1 },
    );
  }
  return slot;
}

export function busy(context: ServerContext): ServerError {
  return new ServerError(
    'busy',
    `The server is running its maximum of ${context.config.maxConcurrentRuns} runs: retry shortly.`,
    { retryAfterSeconds: 1 },
  );
}

/**
 * Runs one journaled segment for a session and answers it as JSON or, with `Accept: text/event-stream`,
 * as SSE frames ending with `run_end`. Takes a run slot (503 when full) and holds the session (a second
 * prompt on it at once is a 409). A client that goes away aborts the run; the transcript so far is still
 * saved (it is always valid), with the paused run's id when it waits for approval.
 */
export async function answerRun(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { session: Session; skill?: string; runId?: string; execute: ExecuteRun; saveSession?: boolean },
): Promise<ChatResponse | FastifyReply> {
  const { session } = options;
  if (context.busySessions.has(session.id)) {
    throw new ServerError('session_busy', `Session ${session.id} is already running a prompt: wait for its answer.`);
  }
  const caller = callerOf(request);
  const slot = acquireRunSlot(context, caller, reply.raw.socket ?? undefined);
  context.busySessions.add(session.id);
  const journal = runJournal(context, caller, options.runId);
  // One signal per run (the slot's): a disconnect, an overflow and the end of a shutdown all abort it.
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const streaming = wantsEventStream(request.headers.accept);
  const events = streaming
    ? chatEventStream(context, request, reply, session.id, () =>
        slot.abort(new Error('the client reads the event stream too slowly')),
      )
    : undefined;
  // A key revoked while its stream is open: the stream ends, and the run goes on for its tenant (its
  // transcript is saved as usual), so the client's going away no longer aborts it.
  const stopWatching = streaming
    ? context.auth.onChange(() => {
        if (context.auth.isValid(caller)) return;
        reply.raw.off('close', onClose);
        if (events?.sse) events.sse.end();
        else reply.raw.destroy();
      })
    : undefined;
  try {
    const result = await options.execute({
      runId: journal.runId,
      store: journal.store,
      signal: slot.signal,
      stream: streaming,
      onEvent: journal.observers(events?.observe),
      budget: journal.budget(context.agent.budget),
    });
    const paused = result.status === 'awaiting_approval';
    await saveRunSession(context, options, result);
    request.log.info({ runId: result.runId, status: result.status, steps: result.steps }, 'run ended');
    if (events?.sse) {
      events.sse.end();
      return reply;
    }
    // Undefined fields are left out of the JSON.
    return {
      answer: result.answer,
      status: result.status,
      runId: result.runId,
      sessionId: session.id,
      steps: result.steps,
      toolCalls: result.toolCalls,
      usage: result.usage,
      error: result.error,
      pendingApprovals: paused ? (result.pendingApprovals ?? []) : undefined,
    };
  } catch (error) {
    if (!events?.sse) throw error;
    // The status line is gone already: log, and end the stream (its run_end was sent by the run).
    request.log.error({ err: error }, 'the run failed after the event stream started');
    events.sse.end();
    return reply;
  } finally {
    stopWatching?.();
    journal.close();
    reply.raw.off('close', onClose);
    context.busySessions.delete(session.id);
    slot.release();
  }
}

/**
 * Saves the session's transcript after a run segment (unless `saveSession` is false: a deleted session stays
 * deleted), with the paused run's id when it waits for approval.
 */
export async function saveRunSession(
  context: ServerContext,
  options: { session: Session; skill?: string; saveSession?: boolean },
  result: AgentResult,
): Promise<void> {
  if (options.saveSession === false) return;
  const { session } = options;
  // Built field by field (no spreads): this runs on every request.
  const saved: Session = {
    id: session.id,
    messages: result.messages,
    createdAt: session.createdAt,
    updatedAt: Date.now(),
  };
  const skill = options.skill ?? session.skill;
  if (skill !== undefined) saved.skill = skill;
  if (result.status === 'awaiting_approval') saved.pendingRunId = result.runId;
  if (session.tenant !== undefined) saved.tenant = session.tenant;
  await context.sessions.set(saved);
}
