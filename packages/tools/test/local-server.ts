import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a test server saw: one entry per request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A real HTTP server on a loopback address and an ephemeral port. */
export interface LocalServer {
  /** `http://<host>:<port>` without a trailing slash. */
  origin: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Starts a node:http server on `host` (default 127.0.0.1) that records each request and calls `handler`. */
export async function startServer(
  handler: (request: http.IncomingMessage, response: http.ServerResponse, server: LocalServer) => void,
  host = '127.0.0.1',
): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  let local: LocalServer;
  const server = http.createServer({ requestTimeout: 10_000 }, (request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    handler(request, response, local);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  local = {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return local;
}

/** A handler that answers every request with `status`, `headers` and `body`. */
export function respond(status: number, headers: http.OutgoingHttpHeaders, body: string | Buffer = '') {
  return (_request: http.IncomingMessage, response: http.ServerResponse) => {
    response.writeHead(status, headers);
    response.end(body);
  };
}

/** A tool context with a fresh signal (or the given one). */
export function toolContext(signal: AbortSignal = new AbortController().signal) {
  return { signal, callId: 'call-1', runId: 'run-1', idempotencyKey: 'run-1:call-1' };
}
