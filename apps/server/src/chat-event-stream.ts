import type { RunEvent } from '@bridle/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicEvent } from './run-views';
import type { ServerContext } from './server-context';
import { openSseStream, type SseStream } from './sse-stream';

/** The events an API stream carries (`run_start` and model events stay server-side: they hold the system prompt). */
const STREAMED: ReadonlySet<RunEvent['type']> = new Set([
  'text_delta',
  'tool_start',
  'tool_end',
  'model_error',
  'run_end',
]);

/** True when the request asks for Server-Sent Events (`Accept: text/event-stream`). */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}

/** The SSE answer of a chat run: opened by its first event, so a run refused before it still gets a JSON status. */
export interface ChatEventStream {
  /** Gives the stream one of the run's events (sub-agents' and internal ones are left out). */
  observe(event: RunEvent): void;
  /** The stream, once the first event opened it. */
  readonly sse: SseStream | undefined;
}

/**
 * The event stream of `/api/chat` and of an approval's resumed run: frames with `id:` (the sequence)
 * and `event:` (the type); the `run_end` frame carries the session id. `onOverflow` is called when the
 * client reads too slowly (the connection is then dropped).
 */
export function chatEventStream(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  onOverflow: () => void,
): ChatEventStream {
  let sse: SseStream | undefined;
  return {
    observe(event) {
      sse ??= openSseStream(reply, {
        headers: { 'x-request-id': request.id, 'x-session-id': sessionId },
        maxBufferBytes: context.config.maxSseBufferBytes,
        onOverflow,
      });
      if (!STREAMED.has(event.type) || event.parentRunId !== undefined) return;
      const shown = publicEvent(event);
      sse.send(shown.type === 'run_end' ? { ...shown, sessionId } : shown, { id: event.sequence, event: event.type });
    },
    get sse() {
      return sse;
    },
  };
}
