import type { FastifyReply } from 'fastify';

/** Optional fields of a frame, written before its `data:` line. */
export interface SseFrameFields {
  /** `id: <id>`: what a reconnecting client sends back as `Last-Event-ID` (the event's sequence). */
  id?: number;
  /** `event: <name>`: the event type (letters, digits, `.`, `_`, `-` only). */
  event?: string;
}

/** A Server-Sent Events response: every frame is `[id: n\n][event: type\n]data: <one line of JSON>\n\n`. */
export interface SseStream {
  /** Writes one frame. Ignored once the stream is closed. */
  send(value: unknown, fields?: SseFrameFields): void;
  /** Writes `data: <text>\n\n` as is (e.g. OpenAI's `[DONE]`); `text` must not contain a line break. */
  sendRaw(text: string): void;
  /** Ends the response (after the last frame). */
  end(): void;
}

/** Options of {@link openSseStream}. */
export interface SseStreamOptions {
  /** Extra response headers (the request id, the session id). */
  headers: Record<string, string>;
  /** Bytes the client may leave unread; beyond, `onOverflow` is called and the connection is dropped. */
  maxBufferBytes: number;
  onOverflow(): void;
  /** A comment line is sent this often so proxies keep the connection open; default 15 s. */
  heartbeatMs?: number;
}

/**
 * Characters JSON leaves raw that some line readers still take as line breaks (Python's `splitlines`,
 * JavaScript's `.` and `^`/`$`): NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Escaped, a frame stays one line
 * for every client, and `JSON.parse` reads the same text back.
 */
const UNSAFE_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
/** Event names are our own type names; anything else is left out rather than written. */
const SAFE_EVENT_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const escapeCharacter = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Takes the response over from Fastify and starts an event stream (keeping the headers hooks set on the
 * reply, such as CORS). `JSON.stringify` escapes every
 * newline inside strings (and NEL, U+2028 and U+2029 are escaped too), so a frame is always exactly one `data:` line: model text can never end a
 * frame early or forge another event.
 */
export function openSseStream(reply: FastifyReply, options: SseStreamOptions): SseStream {
  // Headers hooks set on the reply (CORS from @fastify/cors, for one) are Fastify's to write: a hijacked
  // reply skips that, so they are carried over here, or a browser page could not read the stream.
  const hooked = reply.getHeaders();
  delete hooked['content-length'];
  delete hooked['content-type'];
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    ...(hooked as Record<string, string | string[] | number>),
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  response.flushHeaders();
  let open = true;
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  const close = () => {
    open = false;
    clearInterval(heartbeat);
  };
  response.once('close', close);

  function write(text: string) {
    if (!open || response.destroyed) return;
    response.write(text);
    if (response.writableLength > options.maxBufferBytes) {
      close();
      options.onOverflow();
      response.destroy();
    }
  }
  return {
    send(value, fields) {
      const id = fields?.id === undefined ? '' : `id: ${Math.trunc(fields.id)}\n`;
      const event = fields?.event !== undefined && SAFE_EVENT_NAME.test(fields.event) ? `event: ${fields.event}\n` : '';
      write(`${id}${event}data: ${JSON.stringify(value).replace(UNSAFE_LINE_BREAKS, escapeCharacter)}\n\n`);
    },
    sendRaw: (text) => write(`data: ${text.replace(/[\r\n\u0085\u2028\u2029]/g, ' ')}\n\n`),
    end() {
      if (!open) return;
      close();
      response.end();
    },
  };
}
