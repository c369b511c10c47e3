import type { RunEvent, StoredRun } from '@bridle/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eventsAfter, statusAfter } from '../journal-after';
import { publicEvent } from '../run-views';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { openSseStream } from '../sse-stream';
import { runNotFound, tenantOfRun } from '../tenant-access';
import { callerOf } from '../tenant-auth';

/** How often a run that is not live in this process (another server, a worker) is read again. */
const POLL_MS = 500;

/** `Last-Event-ID`: absent, or the integer id of an event the stream sent. */
function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!/^\d{1,10}$/.test(text.trim()) || !Number.isSafeInteger(Number(text.trim()))) {
    throw new ServerError(
      'bad_request',
      `Invalid Last-Event-ID ${JSON.stringify(text.slice(0, 100))}: send the integer id: of the last event received (or no header to start from the beginning).`,
    );
  }
  return Number(text.trim());
}

function own(runId: string) {
  return (event: RunEvent) => event.runId === runId && event.parentRunId === undefined;
}

/**
 * `GET /api/runs/:id/events`: the run's events as SSE (`id:` = sequence, `event:` = type): the journal
 * first, then live events while its current segment runs; the stream ends after that segment's
 * `run_end` (a finished or paused run: the replay, then the end). `Last-Event-ID: n` sends only events
 * after `n`; an `n` past the last event of a run that is not running is a 400 (no such event was sent).
 * A run running elsewhere (another server, a worker) is followed by reading the store's new events every
 * half second (`Store.readEvents`: the cost of a read is what is new, not the journal); one whose journal
 * stays still for longer than a run may last here (run timeout + shutdown grace) is taken as left behind by
 * a dead process: its stream ends instead of waiting for ever. Open streams are bounded per client address
 * (`BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT`, 429 beyond) and in total (`BRIDLE_MAX_EVENT_STREAMS`, 503 beyond).
 */
export function registerRunEventsRoute(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.get<{ Params: { id: string } }>(
    '/runs/:id/events',
    {
      schema: {
        params: paramsSchema,
        headers: {
          type: 'object',
          properties: { 'last-event-id': { type: 'string', description: 'resume after this event id (sequence)' } },
        },
        summary: "Follow a run's events (SSE): the journal, then live events until its segment ends",
        tags: ['api'],
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const after = lastEventId(request);
      const release = context.eventStreams.acquire(request.ip);
      try {
        return await followRun(request, reply, context, id, after, release);
      } catch (error) {
        release();
        throw error;
      }
    },
  );
}

/** Streams run `id` after event `after` (see the route); `release` gives its place back when the stream ends. */
async function followRun(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  id: string,
  after: number | undefined,
  release: () => void,
): Promise<FastifyReply> {
  // Listen before reading the journal, so nothing falls between the two.
  const buffered: RunEvent[] = [];
  let ended = false;
  let deliver: (event: RunEvent) => void = (event) => {
    buffered.push(event);
  };
  let finish: () => void = () => {
    ended = true;
  };
  const live = context.live.follow(id, { event: (event) => deliver(event), end: () => finish() });
  let stored: StoredRun | undefined;
  try {
    stored = await context.store.readRun(id);
  } catch (error) {
    live?.stop();
    throw error;
  }
  const caller = callerOf(request);
  // Another tenant's run reads as unknown, live or journaled.
  if ((!stored && !live) || (stored ? tenantOfRun(stored) : live?.tenant) !== caller.tenant) {
    live?.stop();
    throw runNotFound(id);
  }
  const isOwn = own(id);
  const journal = (stored?.events ?? []).filter(isOwn);
  const lastJournaled = journal.at(-1)?.sequence ?? -1;
  if (!live && after !== undefined && stored?.status !== 'running' && after > lastJournaled) {
    throw new ServerError(
      'bad_request',
      `Invalid Last-Event-ID ${after}: run ${id} has ended and its last event is ${lastJournaled}. Reconnect without the header to replay it.`,
    );
  }
  let sent = after ?? -1;
  const sse = openSseStream(reply, {
    headers: { 'x-request-id': request.id },
    maxBufferBytes: context.config.maxSseBufferBytes,
    onOverflow: () => live?.stop(),
  });
  const send = (event: RunEvent) => {
    if (event.sequence <= sent) return;
    sent = event.sequence;
    sse.send(publicEvent(event), { id: event.sequence, event: event.type });
  };
  let closed = false;
  // A key revoked while it follows (removed from BRIDLE_API_KEYS_FILE): its stream ends; the run goes on.
  const stopWatching = context.auth.onChange(() => {
    if (!context.auth.isValid(caller)) {
      live?.stop();
      closed = true;
      sse.end();
    }
  });
  reply.raw.once('close', () => {
    closed = true;
    stopWatching();
    live?.stop();
    release();
  });
  const liveFrom = live?.events[0]?.sequence ?? Number.POSITIVE_INFINITY;
  for (const event of journal) if (event.sequence < liveFrom) send(event);
  if (live) {
    for (const event of live.events) send(event);
    for (const event of buffered) send(event);
    if (ended) sse.end();
    else {
      deliver = send;
      finish = () => {
        live.stop();
        sse.end();
      };
    }
    return reply;
  }
  // Not live here: a finished or paused run ends now; a running one (another process) is read again,
  // until its journal has been still for longer than a run may last here: its process died (or hangs).
  let status = stored?.status;
  // The last sequence read from the store: each read asks only for what came after it.
  let cursor = stored?.events.at(-1)?.sequence ?? -1;
  const staleMs = context.config.runTimeoutMs + context.config.shutdownGraceMs + POLL_MS;
  let lastEventAt = Date.now();
  while (status === 'running' && !closed) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (closed) break;
    const fresh = await eventsAfter(context.store, id, cursor).catch(() => undefined);
    if (!fresh) break;
    const before = sent;
    for (const event of fresh) if (isOwn(event)) send(event);
    cursor = fresh.at(-1)?.sequence ?? cursor;
    status = statusAfter(status, fresh);
    if (sent !== before) lastEventAt = Date.now();
    else if (Date.now() - lastEventAt > staleMs) {
      request.log.warn({ runId: id, staleMs }, 'the run has journaled nothing for too long: its stream ends');
      break;
    }
  }
  sse.end();
  return reply;
}
