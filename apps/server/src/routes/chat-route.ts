import { randomUUID } from 'node:crypto';
import { runAgent } from '@bridle/core';
import type { RunEvent } from '@bridle/events';
import type { FastifyInstance } from 'fastify';
import { checkPromptLength, checkSessionRoom } from '../input-bounds';
import type { ChatBody } from '../schemas';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import { openSseStream, type SseStream } from '../sse-stream';

/** The events a chat stream carries (`run_start` and model events stay server-side: they hold the system prompt). */
const STREAMED: ReadonlySet<RunEvent['type']> = new Set([
  'text_delta',
  'tool_start',
  'tool_end',
  'model_error',
  'run_end',
]);

/** The JSON answer of `POST /api/chat`. */
export interface ChatResponse {
  answer?: string;
  status: string;
  runId: string;
  sessionId: string;
  steps: number;
  toolCalls: number;
  usage: { inputTokens: number; outputTokens: number };
  error?: string;
}

function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}

async function loadSession(context: ServerContext, sessionId: string | undefined): Promise<Session> {
  if (sessionId === undefined) {
    const now = Date.now();
    return { id: randomUUID(), messages: [], createdAt: now, updatedAt: now };
  }
  const session = await context.sessions.get(sessionId);
  if (!session) {
    throw new ServerError(
      'not_found',
      `Session ${sessionId} does not exist: it was deleted or expired after being idle. Omit sessionId to start a new conversation.`,
    );
  }
  return session;
}

/**
 * `POST /api/chat`: one run on a new or existing session, answered as JSON or, with
 * `Accept: text/event-stream`, as SSE frames ending with `run_end`. A client that goes away aborts
 * its run; the transcript so far is still saved (it is always valid).
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
      const model = requireModel(context);
      const profile = context.profiles.get(body.skill);
      const session = await loadSession(context, body.sessionId);
      checkSessionRoom(context.config, session, body.prompt);
      if (context.busySessions.has(session.id)) {
        throw new ServerError(
          'session_busy',
          `Session ${session.id} is already running a prompt: wait for its answer.`,
        );
      }
      const slot = context.limiter.tryAcquire();
      if (!slot) {
        throw new ServerError(
          'busy',
          `The server is running its maximum of ${context.config.maxConcurrentRuns} runs: retry shortly.`,
          { retryAfterSeconds: 1 },
        );
      }
      context.busySessions.add(session.id);
      // One signal per run (the slot's): a disconnect, an overflow and the end of a shutdown all abort it.
      const onClose = () => {
        if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
      };
      reply.raw.once('close', onClose);
      const streaming = wantsEventStream(request.headers.accept);
      let sse: SseStream | undefined;
      try {
        const result = await runAgent({
          ...context.agent,
          model,
          tools: profile.tools,
          ...(profile.system === undefined ? {} : { system: profile.system }),
          messages: [...session.messages, { role: 'user', content: body.prompt }],
          ...(body.maxSteps === undefined ? {} : { maxSteps: body.maxSteps }),
          timeoutMs: context.config.runTimeoutMs,
          signal: slot.signal,
          stream: streaming,
          ...(streaming
            ? {
                // The stream opens with the first event: options runAgent refuses still get a JSON error status.
                onEvent: (event: RunEvent) => {
                  sse ??= openSseStream(reply, {
                    headers: { 'x-request-id': request.id, 'x-session-id': session.id },
                    maxBufferBytes: context.config.maxSseBufferBytes,
                    onOverflow: () => slot.abort(new Error('the client reads the event stream too slowly')),
                  });
                  if (STREAMED.has(event.type)) {
                    sse.send(event.type === 'run_end' ? { ...event, sessionId: session.id } : event, {
                      id: event.sequence,
                      event: event.type,
                    });
                  }
                },
              }
            : {}),
        });
        await context.sessions.set({ ...session, messages: result.messages, updatedAt: Date.now() });
        request.log.info({ runId: result.runId, status: result.status, steps: result.steps }, 'run ended');
        if (sse) {
          sse.end();
          return reply;
        }
        const answer: ChatResponse = {
          ...(result.answer === undefined ? {} : { answer: result.answer }),
          status: result.status,
          runId: result.runId,
          sessionId: session.id,
          steps: result.steps,
          toolCalls: result.toolCalls,
          usage: result.usage,
          ...(result.error === undefined ? {} : { error: result.error }),
        };
        return answer;
      } catch (error) {
        if (!sse) throw error;
        // The status line is gone already: log, and end the stream (its run_end was sent by the run).
        request.log.error({ err: error }, 'chat failed after the event stream started');
        sse.end();
        return reply;
      } finally {
        reply.raw.off('close', onClose);
        context.busySessions.delete(session.id);
        slot.release();
      }
    },
  );
}
