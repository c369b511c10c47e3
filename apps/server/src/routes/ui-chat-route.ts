import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import { openSseStream, type SseStream } from '../sse-stream';
import { getOwnSession } from '../tenant-access';
import { callerOf, requireScope } from '../tenant-auth';
import { checkedDecisions } from '../turns/checked-decisions';
import { runSessionTurn, type TurnRequest } from '../turns/session-turn';
import { readUiTurn, UI_CHAT_BODY, type UiChatBody } from '../ui/ui-chat-body';
import { type UiChunk, UiMessageStream } from '../ui/ui-message-stream';

/**
 * The Bridle session of a chat id, per tenant: a name-based UUID (version 5 layout, SHA-256 of the tenant and
 * the chat id), so two tenants' chats with one id are two sessions and another tenant's chat reads exactly as
 * an unknown one; `GET /api/sessions/:id` shows it.
 */
export function uiSessionId(tenant: string, chatId: string): string {
  const hex = createHash('sha256').update(`bridle-ui-chat\u0000${tenant}\u0000${chatId}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function stillWaiting(context: ServerContext, runId: string): Promise<boolean> {
  return (await context.store.readRun(runId))?.status === 'awaiting_approval';
}

/**
 * `POST /api/ui/chat`: the AI SDK UI message stream protocol, so `useChat` (`@ai-sdk/react`, default
 * `DefaultChatTransport`) drives an agent. The chat id is a session kept here (the client's copy of earlier
 * messages is not read); the last message is the turn: a user message runs a prompt, an assistant message whose
 * tool parts answer approval requests (`addToolApprovalResponse`) decides the paused run's calls and resumes it
 * (scope `approve`). Errors before the run are HTTP errors (Bridle's JSON shape); after, an `error` chunk.
 */
export function registerUiChatRoute(app: FastifyInstance, context: ServerContext): void {
  app.post<{ Body: UiChatBody }>(
    '/ui/chat',
    {
      schema: {
        body: UI_CHAT_BODY,
        summary: 'Run the agent for useChat (AI SDK UI message stream protocol, SSE)',
        tags: ['api'],
      },
    },
    async (request, reply) => {
      const body = request.body;
      const turn = readUiTurn(body);
      const caller = callerOf(request);
      const sessionId = uiSessionId(caller.tenant, body.id);
      const stored = await getOwnSession(context, caller, sessionId);
      const continues = turn.kind === 'decide' || body.messages.some((message) => message.role === 'assistant');
      if (!stored && continues) {
        throw new ServerError(
          'not_found',
          `Chat ${body.id} does not exist here (deleted, expired, or never started): start a new chat (a new id).`,
        );
      }
      const now = Date.now();
      const session: Session = stored ?? {
        id: sessionId,
        messages: [],
        createdAt: now,
        updatedAt: now,
        tenant: caller.tenant,
      };
      const pending =
        session.pendingRunId !== undefined && (await stillWaiting(context, session.pendingRunId))
          ? session.pendingRunId
          : undefined;
      let turnRequest: TurnRequest;
      if (turn.kind === 'prompt') {
        if (pending !== undefined) {
          throw new ServerError(
            'session_busy',
            `Chat ${body.id} has run ${pending} waiting for approval: answer its approval requests first (addToolApprovalResponse).`,
          );
        }
        turnRequest = { kind: 'prompt', prompt: turn.prompt };
      } else {
        requireScope(caller, 'approve');
        if (pending === undefined) {
          throw new ServerError(
            'approval_not_pending',
            `Chat ${body.id} has no run waiting for approval: these decisions apply to no pause. Nothing was run.`,
          );
        }
        turnRequest = {
          kind: 'resume',
          runId: pending,
          approvals: await checkedDecisions(context, caller, pending, turn.decisions),
        };
      }
      let sse: SseStream | undefined;
      const send = (chunk: UiChunk) => {
        sse ??= openSseStream(reply, {
          headers: { 'x-request-id': request.id, 'x-session-id': session.id, 'x-vercel-ai-ui-message-stream': 'v1' },
          maxBufferBytes: context.config.maxSseBufferBytes,
          onOverflow: () => reply.raw.destroy(),
        });
        sse.send(chunk);
      };
      // A resumed run continues the assistant message that asked (no new message id).
      const start: UiChunk =
        turnRequest.kind === 'prompt'
          ? { type: 'start', messageMetadata: { sessionId: session.id } }
          : { type: 'start', messageMetadata: { sessionId: session.id, runId: turnRequest.runId } };
      const stream = new UiMessageStream(send, start);
      try {
        const result = await runSessionTurn(context, reply, {
          caller,
          session,
          skill: body.skill,
          turn: turnRequest,
          observe: (event) => stream.observe(event),
          // The stream ends; the run goes on for its tenant (its transcript is saved as usual).
          onRevoked: () => (sse ? sse.end() : reply.raw.destroy()),
        });
        stream.finish(result);
      } catch (error) {
        if (sse === undefined) throw error;
        request.log.error({ err: error }, 'the run failed after the UI message stream started');
        stream.fail('The server failed while running the agent; see its log.');
      }
      sse?.sendRaw('[DONE]');
      sse?.end();
      return reply;
    },
  );
}
