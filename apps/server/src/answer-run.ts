import type { AgentResult } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import type { Store } from '@bridle/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chatEventStream, wantsEventStream } from './chat-event-stream';
import { runJournal } from './run-journal';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Session } from './session-store';

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
  pendingApprovals?: { callId: string; name: string; arguments: unknown }[];
}

/** How the route starts (or continues) its run, given what the server wires in. */
export type ExecuteRun = (wiring: {
  runId: string;
  store: Store;
  signal: AbortSignal;
  stream: boolean;
  onEvent: EventObserver[];
}) => Promise<AgentResult>;

/** The 503 of a full server. */
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
  const slot = context.limiter.tryAcquire(reply.raw.socket ?? undefined);
  if (!slot) throw busy(context);
  context.busySessions.add(session.id);
  const journal = runJournal(context, options.runId);
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
  try {
    const result = await options.execute({
      runId: journal.runId,
      store: journal.store,
      signal: slot.signal,
      stream: streaming,
      onEvent: journal.observers(events?.observe),
    });
    const paused = result.status === 'awaiting_approval';
    if (options.saveSession !== false) {
      // Built field by field (no spreads): this runs on every request.
      const saved: Session = {
        id: session.id,
        messages: result.messages,
        createdAt: session.createdAt,
        updatedAt: Date.now(),
      };
      const skill = options.skill ?? session.skill;
      if (skill !== undefined) saved.skill = skill;
      if (paused) saved.pendingRunId = result.runId;
      await context.sessions.set(saved);
    }
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
    journal.close();
    reply.raw.off('close', onClose);
    context.busySessions.delete(session.id);
    slot.release();
  }
}
