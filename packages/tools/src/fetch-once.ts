import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { AddressCheck } from './check-address';
import { FetchRefusedError } from './guarded-lookup';

/** One HTTP request, without following redirects. */
export interface HopRequest {
  url: URL;
  method: 'GET' | 'HEAD';
  /** Resolves and checks host names; IP-literal hosts are checked by the caller (Node skips lookup for them). */
  lookup: LookupFunction;
  /** Re-checks the address the socket actually connected to. */
  check: (address: string) => AddressCheck;
  maxBytes: number;
  signal: AbortSignal;
}

/** The response to one request: the body is read only for final (non-redirect) GET responses. */
export interface HopResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

const USER_AGENT = 'bridle-http-fetch/0.1 (+https://github.com/bridle-dev/bridle)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** True for a status and headers that ask the client to follow `Location`. */
export function isRedirect(status: number, headers: IncomingHttpHeaders): boolean {
  return REDIRECT_STATUSES.has(status) && typeof headers.location === 'string' && headers.location.length > 0;
}

/**
 * Sends one GET or HEAD over node:http(s) with a fresh connection (no agent, so no pooled socket and no
 * proxy: Node ignores HTTP_PROXY / HTTPS_PROXY / NO_PROXY here). Reads at most `maxBytes` of the decoded
 * body, then destroys the socket. Rejects with the signal's reason when it aborts.
 */
export function fetchOnce(request: HopRequest): Promise<HopResponse> {
  const { url, method, signal, maxBytes } = request;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: unknown, response?: HopResponse) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (response !== undefined) resolve(response);
      else reject(error);
      // Whatever happened, the connection is done: nothing else is read or sent.
      outgoing.destroy();
    };
    const onAbort = () => settle(signal.reason);

    const transport = url.protocol === 'https:' ? https : http;
    const outgoing = transport.request({
      protocol: url.protocol,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method,
      headers: { host: url.host, 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'gzip, deflate, br' },
      agent: false,
      lookup: request.lookup,
    });
    // Listen before anything can fail: destroying the request emits 'error' later, which would crash unheard.
    outgoing.on('error', (error) => settle(error));
    if (signal.aborted) {
      settle(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    outgoing.on('socket', (socket) => {
      // Defense in depth: judge the peer we really reached before the request is written to it.
      socket.prependOnceListener('connect', () => {
        const verdict = request.check(socket.remoteAddress ?? '');
        if (!verdict.allowed) {
          settle(new FetchRefusedError(`connected to ${verdict.address}, ${verdict.problem}`, { address: true }));
        }
      });
    });
    outgoing.on('response', (incoming) => {
      const status = incoming.statusCode ?? 0;
      const head = { status, statusText: incoming.statusMessage ?? '', headers: incoming.headers };
      if (method === 'HEAD' || status === 204 || status === 304 || isRedirect(status, incoming.headers)) {
        settle(undefined, { ...head, body: Buffer.alloc(0), truncated: false });
        return;
      }
      const body = decodedStream(incoming, incoming.headers['content-encoding']);
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        const room = maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          settle(undefined, { ...head, body: Buffer.concat(chunks, maxBytes), truncated: true });
          body.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      body.on('end', () => settle(undefined, { ...head, body: Buffer.concat(chunks, size), truncated: false }));
      body.on('error', (error) => settle(error));
      incoming.on('error', (error) => settle(error));
      incoming.on('close', () => {
        if (!incoming.complete)
          settle(new FetchRefusedError('the server closed the connection before the body was complete'));
      });
    });
    outgoing.end();
  });
}

const DECOMPRESSORS = new Map<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress>([
  ['gzip', zlib.createGunzip],
  ['x-gzip', zlib.createGunzip],
  ['deflate', zlib.createInflate],
  ['br', zlib.createBrotliDecompress],
]);

/**
 * The body stream with its content encoding undone (gzip, deflate, br); other encodings pass through as
 * bytes. The cap applies to the decoded bytes, so a compression bomb stops at `maxBytes` too.
 */
function decodedStream(incoming: Readable, encoding: string | undefined): Readable {
  const create = encoding === undefined ? undefined : DECOMPRESSORS.get(encoding.trim().toLowerCase());
  if (create === undefined) return incoming;
  const decompressor = create();
  incoming.pipe(decompressor);
  return decompressor;
}
