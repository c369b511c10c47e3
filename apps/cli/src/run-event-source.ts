import type { RunEvent } from '@bridle/protocol';
import { createParser } from 'eventsource-parser';
import type { ServerApi } from './server-api';
import { serverError } from './server-api';

/** How a followed stream ended. */
export type StreamEnd = { kind: 'ended' } | { kind: 'failed'; status?: number; code?: string; message: string };

/**
 * Reads `GET /api/runs/:id/events` (Server-Sent Events: the journal, then live events until the run's current
 * segment ends) after event `after` (`Last-Event-ID`), calling `onEvent` with each event in order. Resolves when the
 * server ends the stream, when it refuses (`failed`, with its status and message) or when `signal` aborts (`ended`).
 * Never rejects.
 */
export async function followRunEvents(
  api: ServerApi,
  runId: string,
  options: { after: number | undefined; signal: AbortSignal; onEvent: (event: RunEvent) => void },
): Promise<StreamEnd> {
  let response: Response;
  try {
    response = await fetch(api.url(`runs/${encodeURIComponent(runId)}/events`), {
      headers: api.headers({
        accept: 'text/event-stream',
        ...(options.after === undefined ? {} : { 'last-event-id': String(options.after) }),
      }),
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal.aborted) return { kind: 'ended' };
    return { kind: 'failed', message: `cannot reach ${api.origin}: ${(error as Error).cause ?? error}` };
  }
  if (!response.ok || response.body === null)
    return { kind: 'failed', status: response.status, ...(await serverError(response)) };
  const parser = createParser({
    onEvent(message) {
      // Frames are our own JSON events; anything else (a proxy's comment) is not an event.
      let event: RunEvent;
      try {
        event = JSON.parse(message.data) as RunEvent;
      } catch {
        return;
      }
      if (typeof event === 'object' && event !== null && typeof event.type === 'string') options.onEvent(event);
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    if (!options.signal.aborted)
      return { kind: 'failed', message: `the event stream from ${api.origin} broke: ${(error as Error).message}` };
  }
  return { kind: 'ended' };
}
