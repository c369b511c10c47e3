import type { IncomingMessage } from 'node:http';

/** How much of an unread request body is read and discarded after an early answer, at most. */
export interface DrainBounds {
  /** Bytes of body read and discarded after the answer; past them reading stops until the connection is cut. */
  maxBytes: number;
  /** Milliseconds the connection stays open after the answer, for the client to read it. */
  maxMs: number;
}

/** 8 MiB or 5 s, whichever comes first. */
export const DRAIN_BOUNDS: DrainBounds = { maxBytes: 8 * 1024 * 1024, maxMs: 5_000 };

/**
 * Ends the connection of a request answered before its body was read (a 413 for a body over the limit, a 401,
 * a 415 ...) so that a client still sending can read the answer. The answer carries `Connection: close`.
 *
 * Node ends such a response with `socket.destroySoon()`: the socket closes with part of the body unread, the
 * kernel then resets the connection, and a client still writing gets `EPIPE` / `ECONNRESET`, often before it
 * has read the answer (the reset discards what it had not read yet). Here the answer is sent and the sending
 * side ended (the client sees the whole answer, then the end), and the rest of the body is read and discarded
 * up to `maxBytes`. Past that, reading stops: TCP then holds the client's writes back, and a client busy
 * writing gets to read the answer instead of a reset. The socket is closed once the body has ended, or
 * `maxMs` after the answer. Never throws.
 */
export function drainThenClose(request: IncomingMessage, bounds: DrainBounds = DRAIN_BOUNDS): void {
  const socket = request.socket;
  if (!socket || socket.destroyed) return;
  let drained = 0;
  let bodyEnded = false;
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    // Only after the answer has left: destroy() would drop what is still queued.
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  const overBound = () => drained > bounds.maxBytes;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    // Not closed here: with the client's data unread, closing would reset the connection under an answer the
    // client may not have read yet (it could be busy writing the body that filled the bound).
    if (overBound()) request.pause();
  });
  request.once('end', () => {
    bodyEnded = true;
    if (answered) close();
  });
  request.once('error', () => {
    bodyEnded = true;
  });
  // Node calls this once the answer is written, for a response with `Connection: close`.
  socket.destroySoon = () => {
    answered = true;
    socket.end();
    if (bodyEnded) return close();
    timer = setTimeout(close, bounds.maxMs);
    timer.unref();
  };
}
