import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@bridle/protocol/internal';
import {
  type FakeOutcome,
  type FakeProviderRequest,
  type FakeProviderScript,
  resolveFakeStep,
} from './fake-provider-script';

/** A running fake provider server. */
export interface FakeProviderServer {
  /** The origin, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /** What an SDK takes as `baseURL` (for OpenAI it includes `/v1`). */
  readonly baseURL: string;
  /** Every model call received, in order. */
  readonly requests: FakeProviderRequest[];
  /** Stops the server and drops open connections (hanging requests included). */
  close(): Promise<void>;
}

/** An SSE event: `event:` line (omitted when undefined) and a JSON `data:` line (strings are sent verbatim). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** How one provider renders outcomes on the wire. */
export interface WireFormat {
  serverName: string;
  /** Path prefix of `baseURL`, e.g. `/v1` for OpenAI, `` for Anthropic. */
  basePath: string;
  /** POST paths that are model calls. */
  modelPaths: readonly string[];
  contextLengthMessage: string;
  /** The provider's JSON error body for a status. */
  errorBody(error: { status: number; message: string; errorType?: string; code?: string }): unknown;
  /** Extra headers on every response (request ids and the like). */
  headers(): Record<string, string>;
  /** Renders a response / stream error / cut / hang-after-events as a JSON body or SSE events. */
  render(
    outcome: FakeOutcome,
    request: FakeProviderRequest,
    callIndex: number,
  ): { json: unknown } | { events: SseEvent[] };
  /** Other routes (e.g. `GET /v1/models`); return true when handled. */
  route?(method: string, path: string, response: ServerResponse): boolean;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Stop buffering, answer 413, and let the rest of the upload drain into nothing.
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function formatSse(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

/** How many events (or bytes of JSON) go out before a cut or a hang; undefined means all. */
function stopPoint(outcome: FakeOutcome, total: number): number | undefined {
  if (outcome.type !== 'cut' && outcome.type !== 'hang') return undefined;
  return outcome.afterEvents ?? Math.floor(total / 2);
}

function write(
  format: WireFormat,
  outcome: FakeOutcome,
  request: FakeProviderRequest,
  index: number,
  response: ServerResponse,
) {
  const rendered = format.render(outcome, request, index);
  const stop = 'events' in rendered ? stopPoint(outcome, rendered.events.length) : undefined;
  if ('json' in rendered) {
    const text = JSON.stringify(rendered.json);
    if (outcome.type === 'response' || outcome.type === 'raw') {
      return sendJson(response, 200, rendered.json, format.headers());
    }
    response.writeHead(200, { 'content-type': 'application/json', ...format.headers() });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    if (outcome.type === 'cut') response.socket?.destroy();
    return;
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...format.headers(),
  });
  const events = stop === undefined ? rendered.events : rendered.events.slice(0, stop);
  response.write(events.map(formatSse).join(''));
  if (outcome.type === 'cut') response.socket?.destroy();
  else if (outcome.type !== 'hang') response.end();
}

/** Starts a fake provider on an ephemeral 127.0.0.1 port. Shared by the OpenAI and Anthropic fakes. */
export async function startFakeProviderServer(
  format: WireFormat,
  script: FakeProviderScript,
): Promise<FakeProviderServer> {
  const requests: FakeProviderRequest[] = [];

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = incoming.method ?? 'GET';
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    if (format.route?.(method, path, response)) return;
    if (method !== 'POST' || !format.modelPaths.includes(path)) {
      const message = `${format.serverName}: no route ${method} ${path}`;
      return sendJson(response, 404, format.errorBody({ status: 404, message }), format.headers());
    }
    const text = await readBody(incoming);
    if (text === undefined) {
      const message = `${format.serverName}: request body over ${MAX_BODY_BYTES} bytes`;
      response.setHeader('connection', 'close');
      return sendJson(response, 413, format.errorBody({ status: 413, message }), format.headers());
    }
    const request: FakeProviderRequest = { method, path, headers: { ...incoming.headers }, body: parseBody(text) };
    const callIndex = requests.length;
    requests.push(request);
    let outcome = await resolveFakeStep(script, request, callIndex, format);
    if (outcome.type === 'stream_error' && (request.body as { stream?: unknown } | null)?.stream !== true) {
      // A request that did not ask to stream gets the same failure as an HTTP error.
      const overloaded = outcome.errorType === 'overloaded_error';
      const message = outcome.message ?? (overloaded ? 'Overloaded' : 'The server had an error.');
      outcome = { type: 'http_error', status: overloaded ? 529 : 500, errorType: outcome.errorType, message };
    }
    switch (outcome.type) {
      case 'network_drop':
        incoming.socket.destroy();
        return;
      case 'hang':
        // A bare hang never answers; a hang with a response sends part of it first.
        if (outcome.response === undefined) return;
        return write(format, outcome, request, callIndex, response);
      case 'http_error': {
        const message = outcome.message ?? `${format.serverName}: scripted HTTP ${outcome.status}`;
        const body = format.errorBody({ ...outcome, message });
        return sendJson(response, outcome.status, body, { ...format.headers(), ...outcome.headers });
      }
      default:
        return write(format, outcome, request, callIndex, response);
    }
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      const message = `${format.serverName}: ${errorMessage(error)}`;
      if (!response.headersSent) sendJson(response, 500, format.errorBody({ status: 500, message }), {});
      else response.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}${format.basePath}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
