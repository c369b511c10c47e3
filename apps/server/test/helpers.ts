import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { ModelRequest, ModelResponse } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { type BridleServer, createServer, type ServerOptions } from '../src/index';

/** A listening test server on an ephemeral port, shut down after the test. */
export interface TestServer extends BridleServer {
  url: string;
}

const open: BridleServer[] = [];

/**
 * Shuts down every server {@link startTestServer} started. Called after each test by `test/setup.ts`: a hook
 * registered here, at import, would only serve the first test file of a worker, as the suite shares one
 * module graph between the files of a worker (`isolate: false`).
 */
export async function shutDownTestServers(): Promise<void> {
  await Promise.all(open.splice(0).map((server) => server.shutdown()));
}

/** Starts a server on 127.0.0.1:0 with logging off (unless given) and an empty environment. */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = createServer({ env: {}, logger: false, port: 0, store: 'memory:', ...options });
  open.push(server);
  const url = await server.listen();
  return { ...server, url };
}

/** A model that echoes the last user message (instantly). */
export function echoModel(options: { stream?: boolean } = {}) {
  return scriptedModel(
    (request) => {
      const last = [...request.messages].reverse().find((message) => message.role === 'user');
      return { content: `echo: ${last?.content ?? ''}`, usage: { inputTokens: 2, outputTokens: 3 } };
    },
    { stream: options.stream ?? false },
  );
}

/** A deferred promise. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

/**
 * A model whose calls wait until `release()` (then echo) or until their signal aborts (then reject);
 * `started` resolves at the first call, `aborted` when a call's signal aborts.
 */
export function gatedModel() {
  const started = deferred<ModelRequest>();
  const aborted = deferred<unknown>();
  const gate = deferred();
  const model = scriptedModel(
    (request) =>
      new Promise<ModelResponse>((resolve, reject) => {
        started.resolve(request);
        request.signal.addEventListener('abort', () => {
          aborted.resolve(request.signal.reason);
          reject(request.signal.reason);
        });
        void gate.promise.then(() => resolve({ content: 'released', usage: { inputTokens: 1, outputTokens: 1 } }));
      }),
    { stream: true },
  );
  return { model, started: started.promise, aborted: aborted.promise, release: gate.resolve };
}

/** POSTs JSON and returns status, headers and parsed body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Response['headers']; body: Json }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** One SSE frame: its `id:` and `event:` fields (when present) and its parsed `data:` line. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: Record<string, unknown>;
}

/**
 * Reads a whole SSE response into its frames (comments skipped). Each frame must have exactly one
 * `data:` line, optionally after `id:` and `event:` lines.
 */
export async function readSseFrames(response: Response): Promise<SseFrame[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame !== '' && !frame.startsWith(':'))
    .map((frame) => {
      const lines = frame.split('\n');
      const parsed: Partial<SseFrame> = {};
      for (const line of lines) {
        const match = /^(id|event|data): (.*)$/.exec(line);
        if (!match || (match[1] as string) in parsed) throw new Error(`an unexpected frame: ${JSON.stringify(frame)}`);
        if (match[1] === 'data') parsed.data = JSON.parse(match[2] as string) as Record<string, unknown>;
        else parsed[match[1] as 'id' | 'event'] = match[2] as string;
      }
      if (!parsed.data) throw new Error(`a frame without data: ${JSON.stringify(frame)}`);
      return parsed as SseFrame;
    });
}

/** Reads a whole SSE response into its parsed `data:` frames (comments skipped). */
export async function readSse(response: Response): Promise<Record<string, unknown>[]> {
  return (await readSseFrames(response)).map((frame) => frame.data);
}

/** A parsed JSON body, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON shapes
export type Json = any;

/** The JSON body of a response. */
export async function json(response: Response): Promise<Json> {
  return response.json();
}

/**
 * One request over `node:http`, so that headers `fetch` would set itself (`Host`, `Origin`) are sent as
 * given. A `body` is sent as JSON.
 */
export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: {
          ...(options.body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
