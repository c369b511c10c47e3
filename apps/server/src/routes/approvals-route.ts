import { randomUUID } from 'node:crypto';
import { type ApprovalDecision, JournalError, resumeRun } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { answerDetachedRun, prefersAsync } from '../answer-detached-run';
import { answerQueuedRun } from '../answer-queued-run';
import { answerRun } from '../answer-run';
import { wantsEventStream } from '../chat-event-stream';
import { pendingCalls, runParent, runSessionId } from '../run-views';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import { getOwnSession, readOwnRun, runNotFound } from '../tenant-access';
import { callerOf } from '../tenant-auth';

/**
 * A decision in `POST /api/runs/:id/approvals`: `true` / `false`, or `{ approved, digest }` naming the
 * pending call's `digest` (from `pendingApprovals`), so it applies only to the call the person was shown.
 */
export type ApprovalsDecision = boolean | { approved: boolean; digest?: string };

/** The body of `POST /api/runs/:id/approvals`. */
export interface ApprovalsBody {
  approvals: Record<string, ApprovalsDecision>;
}

export const APPROVALS_BODY = {
  type: 'object',
  required: ['approvals'],
  additionalProperties: false,
  properties: {
    approvals: {
      type: 'object',
      minProperties: 1,
      maxProperties: 1000,
      description:
        'decisions by call id (pendingApprovals[].callId): true runs the call, false denies it; { approved, digest } applies only to the call whose pendingApprovals[].digest it names',
      propertyNames: { maxLength: 256 },
      additionalProperties: {
        anyOf: [
          { type: 'boolean' },
          {
            type: 'object',
            required: ['approved'],
            additionalProperties: false,
            properties: { approved: { type: 'boolean' }, digest: { type: 'string', maxLength: 100 } },
          },
        ],
      },
    },
  },
} as const;

const quote = (value: string) => JSON.stringify(value);

/**
 * The decisions as core journals them (`approval_decided`): each made by a person, `by` the name of the API
 * key that sent it (`BRIDLE_API_TOKEN` for that one), never a name the client chose.
 */
function authored(
  approvals: Record<string, ApprovalsDecision>,
  request: FastifyRequest,
): Record<string, ApprovalDecision> {
  const by = callerOf(request).keyName ?? 'a client without an API key';
  const result: Record<string, ApprovalDecision> = {};
  for (const [callId, decision] of Object.entries(approvals)) {
    const object = typeof decision === 'boolean' ? { approved: decision } : decision;
    result[callId] = { ...object, by } as ApprovalDecision;
  }
  return result;
}

/** The first call whose decision names a digest other than the pending call's, if any. */
function staleDecision(
  approvals: Record<string, ApprovalsDecision>,
  calls: readonly { callId: string; digest?: string }[],
): string | undefined {
  for (const [callId, decision] of Object.entries(approvals)) {
    if (typeof decision !== 'object' || decision.digest === undefined) continue;
    if (calls.find((call) => call.callId === callId)?.digest !== decision.digest) return callId;
  }
  return undefined;
}

/**
 * `POST /api/runs/:id/approvals` `{ approvals: { <callId>: true | false | { approved, digest } } }`: decides
 * calls a paused run waits on and resumes it (JSON, or SSE with `Accept: text/event-stream`), with the
 * session's skill and the arguments recorded in the journal. A call that is not pending, a decision whose
 * digest is not the pending call's (made on another pause), or a run that is not waiting, is a 409 naming
 * the call, and nothing runs; of two decisions at once, one resumes and the other gets a 409. With `Prefer:
 * respond-async` (and no event stream asked for) the resumed segment runs for the server: 202 once it is under way,
 * and the run stays marked as being resumed (a second decision is a 409 `run_busy`) until it settles.
 */
export function registerApprovalsRoute(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.post<{ Params: { id: string }; Body: ApprovalsBody }>(
    '/runs/:id/approvals',
    {
      schema: {
        params: paramsSchema,
        headers: {
          type: 'object',
          properties: {
            prefer: {
              type: 'string',
              description:
                'respond-async: answer 202 { runId, sessionId, status: "running" } as soon as the resumed segment is under way, and run it without this request (closing it does not stop the run); follow it with GET /api/runs/:id/events',
            },
          },
        },
        body: APPROVALS_BODY,
        summary:
          'Decide pending tool calls of a paused run and resume it (JSON, SSE, or 202 with Prefer: respond-async)',
        tags: ['api'],
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const callIds = Object.keys(request.body.approvals);
      const first = quote(callIds[0] as string);
      // Taken before the first await: of two decisions at once, exactly one gets past here.
      if (context.resumingRuns.has(id)) {
        throw new ServerError(
          'run_busy',
          `Cannot decide call ${first}: run ${id} is being resumed by another decision right now. Reload the run to see its status.`,
        );
      }
      context.resumingRuns.add(id);
      // With `Prefer: respond-async` the resumed segment runs for the server, not for this request: the run stays
      // marked as being resumed until it settles (the answering function calls onSettled once, whatever happens).
      const detached = prefersAsync(request) && !wantsEventStream(request.headers.accept);
      let settlesLater = false;
      const onSettled = () => context.resumingRuns.delete(id);
      try {
        const caller = callerOf(request);
        // Another tenant's run reads as unknown.
        const run = await readOwnRun(context, caller, id);
        if (!run) throw runNotFound(id);
        if (run.status !== 'awaiting_approval') {
          throw new ServerError(
            'run_not_waiting',
            `Cannot decide call ${first}: run ${id} is not waiting for approval (status ${run.status}). Nothing was run.`,
          );
        }
        const parent = runParent(run);
        if (parent !== undefined) {
          // Its pause is its parent's: resuming it alone would leave the parent waiting on a call that ran.
          throw new ServerError(
            'approval_not_pending',
            `Cannot decide call ${first} on run ${id}: it is a sub-agent of run ${parent.runId}, which waits on the same calls. Decide them there (POST /api/runs/${parent.runId}/approvals): that resumes both. Nothing was run.`,
          );
        }
        const calls = pendingCalls(run);
        const pending = calls.map((call) => call.callId);
        const unknown = callIds.find((callId) => !pending.includes(callId));
        if (unknown !== undefined) {
          throw new ServerError(
            'approval_not_pending',
            `Cannot decide call ${quote(unknown)}: it is not pending in run ${id} (pending: ${pending.map(quote).join(', ') || 'none'}). Nothing was run.`,
          );
        }
        const stale = staleDecision(request.body.approvals, calls);
        if (stale !== undefined) {
          throw new ServerError(
            'approval_not_pending',
            `Cannot decide call ${quote(stale)}: the decision was made on another pause (its digest is not the pending call's). Nothing was run; reload the run and decide on the call it shows.`,
          );
        }
        const sessionId = runSessionId(run);
        const stored = sessionId === undefined ? undefined : await getOwnSession(context, caller, sessionId);
        // A deleted session stays deleted: the run resumes, and its transcript is in the journal only.
        const now = Date.now();
        const session: Session = stored ?? {
          id: sessionId ?? randomUUID(),
          messages: [],
          createdAt: now,
          updatedAt: now,
          tenant: caller.tenant,
        };
        if (context.queue) {
          // A worker resumes it: it holds the model, the skills and the keys.
          settlesLater = detached;
          return await answerQueuedRun(
            context,
            context.queue,
            request,
            reply,
            {
              session,
              saveSession: stored !== undefined,
              ...(stored?.skill === undefined ? {} : { skill: stored.skill }),
              resume: {
                runId: id,
                approvals: authored(request.body.approvals, request),
                fromSequence: (run.events.at(-1)?.sequence ?? -1) + 1,
              },
            },
            detached ? { onSettled } : undefined,
          );
        }
        const model = requireModel(context);
        const profile = context.profiles.get(stored?.skill);
        const segment = {
          session,
          runId: id,
          saveSession: stored !== undefined,
          ...(stored?.skill === undefined ? {} : { skill: stored.skill }),
          execute: async ({ store, signal, stream, onEvent, budget }) => {
            try {
              return await resumeRun({
                approve: () => 'ask',
                ...context.agent,
                model,
                tools: profile.tools,
                ...(profile.system === undefined ? {} : { system: profile.system }),
                timeoutMs: context.config.runTimeoutMs,
                signal,
                stream,
                store,
                runId: id,
                approvals: authored(request.body.approvals, request),
                onEvent,
                ...(budget === undefined ? {} : { budget }),
              });
            } catch (error) {
              // Another process decided first (same store): core refuses before anything runs.
              if (ConfigError.isInstance(error)) throw new ServerError('approval_not_pending', error.message);
              // Or both read the paused run at once: the journal takes one resumed segment, refuses the other.
              if (JournalError.isInstance(error) && (error.conflict || error.fenced)) {
                throw new ServerError(
                  'run_busy',
                  `Cannot decide call ${first}: run ${id} was resumed by another decision at the same moment (another server on this store). Nothing was run here; reload the run to see its status.`,
                );
              }
              throw error;
            }
          },
        } satisfies Parameters<typeof answerRun>[3];
        if (!detached) return await answerRun(context, request, reply, segment);
        settlesLater = true;
        return await answerDetachedRun(context, request, reply, segment, onSettled);
      } finally {
        if (!settlesLater) onSettled();
      }
    },
  );
}
