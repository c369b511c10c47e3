import { randomUUID } from 'node:crypto';
import { runAgent } from '@bridle/core';
import type { FastifyInstance } from 'fastify';
import { answerQueuedRun } from '../answer-queued-run';
import { answerRun } from '../answer-run';
import { checkPromptLength, checkSessionRoom } from '../input-bounds';
import { skillManifest } from '../journaled-profile';
import { serverRunOptions } from '../run-options';
import type { ChatBody } from '../schemas';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import { getOwnSession } from '../tenant-access';
import { type Caller, callerOf } from '../tenant-auth';

export type { ChatResponse } from '../answer-run';

/**
 * Whether a session's paused run still waits. One decided elsewhere (`bridle resume`, another tool on the
 * same store) no longer holds the session: it takes prompts again (that run's transcript is in its journal).
 */
async function stillWaiting(context: ServerContext, runId: string): Promise<boolean> {
  const run = await context.store.readRun(runId);
  return run?.status === 'awaiting_approval';
}

async function loadSession(context: ServerContext, caller: Caller, sessionId: string | undefined): Promise<Session> {
  if (sessionId === undefined) {
    const now = Date.now();
    return { id: randomUUID(), messages: [], createdAt: now, updatedAt: now, tenant: caller.tenant };
  }
  // Another tenant's session reads as unknown.
  const session = await getOwnSession(context, caller, sessionId);
  if (!session) {
    throw new ServerError(
      'not_found',
      `Session ${sessionId} does not exist: it was deleted or expired after being idle. Omit sessionId to start a new conversation.`,
    );
  }
  if (session.pendingRunId !== undefined && (await stillWaiting(context, session.pendingRunId))) {
    throw new ServerError(
      'session_busy',
      `Session ${sessionId} has run ${session.pendingRunId} waiting for approval: decide it first with POST /api/runs/${session.pendingRunId}/approvals.`,
    );
  }
  return session;
}

const askPerson = () => 'ask' as const;

/**
 * `POST /api/chat`: one journaled run on a new or existing session, answered as JSON or, with
 * `Accept: text/event-stream`, as SSE frames ending with `run_end`. A tool that requires approval pauses
 * the run (unless the server's `agent.approve` decides): the answer is `status: "awaiting_approval"` with
 * `pendingApprovals`, and `POST /api/runs/:runId/approvals` continues it.
 */
export function registerChatRoute(app: FastifyInstance, context: ServerContext, schema: object): void {
  app.post<{ Body: ChatBody }>(
    '/chat',
    {
      schema: {
        body: schema,
        summary: 'Run the agent on a prompt (JSON, or SSE with Accept: text/event-stream)',
        tags: ['api'],
      },
    },
    async (request, reply) => {
      const body = request.body;
      checkPromptLength(context.config, body.prompt);
      if (context.queue) {
        // Workers run it: they hold the model, the skills and the keys.
        const session = await loadSession(context, callerOf(request), body.sessionId);
        checkSessionRoom(context.config, session, body.prompt);
        return answerQueuedRun(context, context.queue, request, reply, {
          session,
          prompt: body.prompt,
          ...(body.skill === undefined ? {} : { skill: body.skill }),
          ...(body.maxSteps === undefined ? {} : { maxSteps: body.maxSteps }),
        });
      }
      const model = requireModel(context);
      const profile = context.profiles.get(body.skill);
      const session = await loadSession(context, callerOf(request), body.sessionId);
      checkSessionRoom(context.config, session, body.prompt);
      const skill = body.skill ?? context.profiles.defaultSkill;
      return answerRun(context, request, reply, {
        session,
        ...(skill === undefined ? {} : { skill }),
        execute: ({ runId, store, signal, stream, onEvent, budget }) =>
          runAgent(
            serverRunOptions(context.agent, {
              // A person decides calls that require approval, through the API (the server's hook wins).
              approve: context.agent.approve ?? askPerson,
              model,
              tools: profile.tools,
              system: profile.system,
              messages: [...session.messages, { role: 'user', content: body.prompt }],
              // In run_start too, so observers (the OpenTelemetry sink's gen_ai.conversation.id) see it.
              sessionId: session.id,
              // The skill, so recovery rebuilds these tools whatever the session says later.
              manifest: skillManifest(skill),
              maxSteps: body.maxSteps,
              timeoutMs: context.config.runTimeoutMs,
              signal,
              stream,
              store,
              runId,
              onEvent,
              budget,
            }),
          ),
      });
    },
  );
}
