import { randomUUID } from 'node:crypto';
import { JournalError, resumeRun } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import type { FastifyInstance } from 'fastify';
import { answerQueuedRun } from '../answer-queued-run';
import { answerRun } from '../answer-run';
import { pendingCalls, runSessionId } from '../run-views';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';

/** The body of `POST /api/runs/:id/approvals`. */
export interface ApprovalsBody {
  approvals: Record<string, boolean>;
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
      description: 'decisions by call id (pendingApprovals[].callId): true runs the call, false denies it',
      propertyNames: { maxLength: 256 },
      additionalProperties: { type: 'boolean' },
    },
  },
} as const;

const quote = (value: string) => JSON.stringify(value);

/**
 * `POST /api/runs/:id/approvals` `{ approvals: { <callId>: true | false } }`: decides calls a paused run
 * waits on and resumes it (JSON, or SSE with `Accept: text/event-stream`), with the session's skill and
 * the arguments recorded in the journal. A call that is not pending, or a run that is not waiting, is a
 * 409 naming the call, and nothing runs; of two decisions at once, one resumes and the other gets a 409.
 */
export function registerApprovalsRoute(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.post<{ Params: { id: string }; Body: ApprovalsBody }>(
    '/runs/:id/approvals',
    {
      schema: {
        params: paramsSchema,
        body: APPROVALS_BODY,
        summary: 'Decide pending tool calls of a paused run and resume it (JSON, or SSE)',
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
      try {
        const run = await context.store.readRun(id);
        if (!run) throw new ServerError('not_found', `Run ${id} does not exist in this server's store (BRIDLE_STORE).`);
        if (run.status !== 'awaiting_approval') {
          throw new ServerError(
            'run_not_waiting',
            `Cannot decide call ${first}: run ${id} is not waiting for approval (status ${run.status}). Nothing was run.`,
          );
        }
        const pending = pendingCalls(run).map((call) => call.callId);
        const unknown = callIds.find((callId) => !pending.includes(callId));
        if (unknown !== undefined) {
          throw new ServerError(
            'approval_not_pending',
            `Cannot decide call ${quote(unknown)}: it is not pending in run ${id} (pending: ${pending.map(quote).join(', ') || 'none'}). Nothing was run.`,
          );
        }
        const sessionId = runSessionId(run);
        const stored = sessionId === undefined ? undefined : await context.sessions.get(sessionId);
        // A deleted session stays deleted: the run resumes, and its transcript is in the journal only.
        const now = Date.now();
        const session: Session = stored ?? {
          id: sessionId ?? randomUUID(),
          messages: [],
          createdAt: now,
          updatedAt: now,
        };
        if (context.queue) {
          // A worker resumes it: it holds the model, the skills and the keys.
          return await answerQueuedRun(context, context.queue, request, reply, {
            session,
            saveSession: stored !== undefined,
            ...(stored?.skill === undefined ? {} : { skill: stored.skill }),
            resume: {
              runId: id,
              approvals: request.body.approvals,
              fromSequence: (run.events.at(-1)?.sequence ?? -1) + 1,
            },
          });
        }
        const model = requireModel(context);
        const profile = context.profiles.get(stored?.skill);
        return await answerRun(context, request, reply, {
          session,
          runId: id,
          saveSession: stored !== undefined,
          ...(stored?.skill === undefined ? {} : { skill: stored.skill }),
          execute: async ({ runId, store, signal, stream, onEvent }) => {
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
                runId,
                approvals: request.body.approvals,
                onEvent,
              });
            } catch (error) {
              // Another process decided first (same store): core refuses before anything runs.
              if (ConfigError.isInstance(error)) throw new ServerError('approval_not_pending', error.message);
              // Or both read the paused run at once: the journal takes one resumed segment, refuses the other.
              if (JournalError.isInstance(error) && error.conflict) {
                throw new ServerError(
                  'run_busy',
                  `Cannot decide call ${first}: run ${id} was resumed by another decision at the same moment (another server on this store). Nothing was run here; reload the run to see its status.`,
                );
              }
              throw error;
            }
          },
        });
      } finally {
        context.resumingRuns.delete(id);
      }
    },
  );
}
