import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as received by {@link fakeOtlpCollector}, decoded from OTLP/HTTP JSON. */
export interface FakeOtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  /** The OTLP span kind number (1 internal, 2 server, 3 client, ...). */
  kind: number;
  attributes: Record<string, unknown>;
  /** The status code (0 unset, 1 ok, 2 error) and message. */
  status: { code: number; message?: string };
  /** The attributes of the resource that sent it (`service.name`, ...). */
  resource: Record<string, unknown>;
}

/** One POST the collector received. */
export interface FakeOtlpRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body, as sent. */
  body: string;
}

/** Options of {@link fakeOtlpCollector}. */
export interface FakeOtlpCollectorOptions {
  /** Accept requests and never answer them (a collector that hangs). Default false. */
  hang?: boolean;
}

/** A running fake OTLP/HTTP collector. */
export interface FakeOtlpCollector {
  /** The origin, e.g. `http://127.0.0.1:54321`: what `OTEL_EXPORTER_OTLP_ENDPOINT` takes. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: FakeOtlpRequest[];
  /** Every span of every `POST /v1/traces` JSON body received so far, in order. */
  spans(): FakeOtlpSpan[];
  /** Resolves with {@link spans} once at least `count` have arrived; rejects after `timeoutMs` (default 10000). */
  waitForSpans(count: number, timeoutMs?: number): Promise<FakeOtlpSpan[]>;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function decodeValue(value: AnyValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: { key: string; value?: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind?: number;
        attributes?: { key: string; value?: AnyValue }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

function decodeSpans(body: string): FakeOtlpSpan[] {
  const json = JSON.parse(body) as OtlpJson;
  const out: FakeOtlpSpan[] = [];
  for (const group of json.resourceSpans ?? []) {
    const resource = decodeAttributes(group.resource?.attributes);
    for (const scope of group.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        out.push({
          name: span.name,
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          kind: span.kind ?? 0,
          attributes: decodeAttributes(span.attributes),
          status: {
            code: span.status?.code ?? 0,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          resource,
        });
      }
    }
  }
  return out;
}

/**
 * A local OTLP/HTTP collector on 127.0.0.1 for tests: it takes `POST /v1/traces` with a JSON body (what
 * `@opentelemetry/exporter-trace-otlp-http` sends), answers `{}` and keeps the decoded spans. Other
 * requests get 404; a protobuf body is kept in `requests` but not decoded.
 */
export async function fakeOtlpCollector(options: FakeOtlpCollectorOptions = {}): Promise<FakeOtlpCollector> {
  const requests: FakeOtlpRequest[] = [];
  const received: FakeOtlpSpan[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      requests.push({ path, headers: request.headers, body });
      if (options.hang) return;
      if (request.method !== 'POST' || path !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (String(request.headers['content-type']).startsWith('application/json')) {
        try {
          received.push(...decodeSpans(body));
        } catch {
          response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"bad JSON"}');
          return;
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => [...received],
    waitForSpans(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          cleanup();
          resolve([...received]);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`fakeOtlpCollector: ${received.length} span(s) after ${timeoutMs} ms, expected ${count}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
