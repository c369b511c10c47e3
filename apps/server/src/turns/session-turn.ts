import { type AgentResult, type ApprovalDecision, JournalError, resumeRun, runAgent } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import { ConfigError } from '@bridle/protocol';
import type { FastifyReply } from 'fastify';
import { acquireRunSlot } from '../answer-run';
import { checkPromptLength, checkSessionRoom } from '../input-bounds';
import { runJournal } from '../run-journal';
import { serverRunOptions } from '../run-options';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import type { Caller } from '../tenant-auth';
import { runQueuedTurn } from './queued-turn';
import type { TurnResult } from './turn-result';

/** What a protocol face (`/api/ui/chat`, `/a2a`) asks of one turn on a session. */
export type TurnRequest =
  | { kind: 'prompt'; prompt: string }
  | { kind: 'resume'; runId: string; approvals: Record<string, ApprovalDecision> };

/** Options of {@link runSessionTurn}. */
export interface SessionTurnOptions {
  caller: Caller;
  session: Session;
  /** The skill of the run (undefined: the session's, else the server's default). */
  skill?: string | undefined;
  turn: TurnRequest;
  /** Hears every event of the run (sub-agents' too), as they happen. */
  observe?: EventObserver;
  /** The run id of a new run (default a new UUID). A2A gives the task id it announced. */
  runId?: string;
  /**
   * Called when the caller's key is revoked while the run goes on (its stream should end); from then on the
   * client's going away no longer aborts the run, which finishes for its tenant.
   */
  onRevoked?: () => void;
}

const askPerson = () => 'ask' as const;

/**
 * Runs one turn of a session the way `/api/chat` and `POST /api/runs/:id/approvals` do (the same run slot,
 * journal, tenant stamp, quota gate, approval hook and session saving), for faces that speak another
 * protocol on the reply themselves: it never writes to `reply`, it only watches it (a client that goes away
 * aborts the run). Throws `ServerError` before the run starts (busy session, full server, too long a prompt,
 * a decision for a call that is not pending); after, failures are the result's status. With
 * `BRIDLE_REDIS_URL` a worker runs the turn ({@link runQueuedTurn}); its events come back over Redis.
 */
export async function runSessionTurn(
  context: ServerContext,
  reply: FastifyReply,
  options: SessionTurnOptions,
): Promise<TurnResult> {
  const { session, turn, caller } = options;
  if (turn.kind === 'prompt') {
    checkPromptLength(context.config, turn.prompt);
    checkSessionRoom(context.config, session, turn.prompt);
  }
  if (context.busySessions.has(session.id)) {
    throw new ServerError('session_busy', `Session ${session.id} is already running a prompt: wait for its answer.`);
  }
  if (turn.kind === 'resume' && context.resumingRuns.has(turn.runId)) {
    throw new ServerError(
      'run_busy',
      `Run ${turn.runId} is being resumed by another decision right now. Reload the run to see its status.`,
    );
  }
  // Workers run it (BRIDLE_REDIS_URL): they hold the model, the skills and the keys.
  if (context.queue) return runQueuedTurn(context, context.queue, reply, options);
  const model = requireModel(context);
  const skill = options.skill ?? session.skill ?? context.profiles.defaultSkill;
  const profile = context.profiles.get(skill);
  const slot = acquireRunSlot(context, caller, reply.raw.socket ?? undefined);
  context.busySessions.add(session.id);
  if (turn.kind === 'resume') context.resumingRuns.add(turn.runId);
  const journal = runJournal(context, caller, turn.kind === 'resume' ? turn.runId : options.runId);
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const onRevoked = options.onRevoked;
  const stopWatching = onRevoked
    ? context.auth.onChange(() => {
        if (context.auth.isValid(caller)) return;
        reply.raw.off('close', onClose);
        onRevoked();
      })
    : undefined;
  try {
    const onEvent = journal.observers(options.observe);
    const budget = journal.budget(context.agent.budget);
    let result: AgentResult;
    if (turn.kind === 'prompt') {
      result = await runAgent(
        serverRunOptions(context.agent, {
          approve: context.agent.approve ?? askPerson,
          model,
          tools: profile.tools,
          system: profile.system,
          messages: [...session.messages, { role: 'user', content: turn.prompt }],
          sessionId: session.id,
          maxSteps: undefined,
          timeoutMs: context.config.runTimeoutMs,
          signal: slot.signal,
          stream: true,
          store: journal.store,
          runId: journal.runId,
          onEvent,
          budget,
        }),
      );
    } else {
      try {
        result = await resumeRun({
          approve: askPerson,
          ...context.agent,
          model,
          tools: profile.tools,
          ...(profile.system === undefined ? {} : { system: profile.system }),
          timeoutMs: context.config.runTimeoutMs,
          signal: slot.signal,
          stream: true,
          store: journal.store,
          runId: turn.runId,
          approvals: turn.approvals,
          onEvent,
          ...(budget === undefined ? {} : { budget }),
        });
      } catch (error) {
        // Another process decided first (same store): core refuses before anything runs.
        if (ConfigError.isInstance(error)) throw new ServerError('approval_not_pending', error.message);
        if (JournalError.isInstance(error) && (error.conflict || error.fenced)) {
          throw new ServerError(
            'run_busy',
            `Run ${turn.runId} was resumed by another decision at the same moment. Nothing was run here; reload the run to see its status.`,
          );
        }
        throw error;
      }
    }
    const saved: Session = {
      id: session.id,
      messages: result.messages,
      createdAt: session.createdAt,
      updatedAt: Date.now(),
    };
    if (skill !== undefined) saved.skill = skill;
    if (result.status === 'awaiting_approval') saved.pendingRunId = result.runId;
    if (session.tenant !== undefined) saved.tenant = session.tenant;
    await context.sessions.set(saved);
    return result;
  } finally {
    stopWatching?.();
    journal.close();
    reply.raw.off('close', onClose);
    context.busySessions.delete(session.id);
    if (turn.kind === 'resume') context.resumingRuns.delete(turn.runId);
    slot.release();
  }
}
