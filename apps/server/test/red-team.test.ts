import { connect } from 'node:net';
import type { Model, ModelStreamPart } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { UNEXPECTED_MODEL_ERROR } from '../src/guard-model';
import { echoModel, gatedModel, type Json, postJson, readSse, startTestServer, type TestServer } from './helpers';

const TOKEN = 'red-team-token-0123456789abcdef';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Sends raw bytes on a new connection and resolves with everything the server wrote before closing. */
function rawRequest(server: TestServer, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      received += data;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.end(text);
  });
}

function connections(server: TestServer): Promise<number> {
  return new Promise((resolve, reject) =>
    server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

function expectNoInternals(body: unknown): void {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node:internal|\/work\/|node_modules|\.ts:\d+/);
}

describe('red team: authentication', () => {
  async function authServer() {
    return startTestServer({ model: echoModel(), env: { BRIDLE_API_TOKEN: TOKEN } });
  }
  const chat = (server: TestServer, headers: Record<string, string>, path = '/api/chat') =>
    postJson(`${server.url}${path}`, { prompt: 'hi' }, headers);

  it('accepts the scheme in any case and extra spaces around the token (RFC 7235)', async () => {
    const server = await authServer();
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN}`, `Bearer ${TOKEN}  `]) {
      expect((await chat(server, { authorization: header })).status).toBe(200);
    }
  });

  it('refuses near misses: no space, other schemes, extra words, other lengths, a token in the query', async () => {
    const server = await authServer();
    const refused = [
      `Bearer${TOKEN}`,
      `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
      `Bearer ${TOKEN} extra`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      'Bearer',
      `Token ${TOKEN}`,
    ];
    for (const header of refused) {
      const { status, headers, body } = await chat(server, { authorization: header });
      expect(status, header).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer');
      expect(body.error.code).toBe('unauthorized');
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
    for (const query of [`?token=${TOKEN}`, `?access_token=${TOKEN}`, `?authorization=Bearer%20${TOKEN}`]) {
      expect((await chat(server, {}, `/api/chat${query}`)).status).toBe(401);
    }
  });

  it('guards every /api route and method before validating anything, including DELETE and batch GET', async () => {
    const server = await authServer();
    const routes: [string, string, string | undefined][] = [
      ['POST', '/api/chat', '{"prompt":"x"}'],
      ['POST', '/api/chat', '{"not json'],
      ['POST', '/api/batch', '{"items":[{"prompt":"x"}]}'],
      ['GET', `/api/batch/${UNKNOWN_ID}`, undefined],
      ['GET', '/api/batch/..%2F..%2Fetc%2Fpasswd', undefined],
      ['DELETE', `/api/batch/${UNKNOWN_ID}`, undefined],
      ['DELETE', `/api/sessions/${UNKNOWN_ID}`, undefined],
      ['DELETE', '/api/sessions/not-a-uuid', undefined],
    ];
    for (const [method, path, body] of routes) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it('/health says only that the process is up; neither it nor 401s leak the token or internals', async () => {
    const server = await authServer();
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const denied = await chat(server, {});
    expectNoInternals(denied.body);
    expect(Object.keys(denied.body.error).sort()).toEqual(['code', 'message', 'requestId']);
  });

  it("another client's session id: unusable without the token; with it, ids are random v4 UUIDs", async () => {
    const server = await authServer();
    const auth = { authorization: `Bearer ${TOKEN}` };
    const ids = new Set<string>();
    for (let index = 0; index < 5; index++) ids.add((await chat(server, auth)).body.sessionId);
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [victim] = [...ids];
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'steal', sessionId: victim })).status).toBe(401);
    expect((await fetch(`${server.url}/api/sessions/${victim}`, { method: 'DELETE' })).status).toBe(401);
    // The session is still there for its owner.
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'mine', sessionId: victim }, auth)).status).toBe(200);
  });
});

describe('red team: request bodies', () => {
  it('refuses session ids that are not server-issued UUIDs, in the body and in the path', async () => {
    const server = await startTestServer({ model: echoModel() });
    for (const sessionId of [
      '../../etc/passwd',
      '..%2F..',
      `${UNKNOWN_ID}/..`,
      `${UNKNOWN_ID}\n`,
      '',
      'a'.repeat(5000),
    ]) {
      const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'x', sessionId });
      expect(status, JSON.stringify(sessionId)).toBe(400);
      expect(body.error.message).toBe(
        'Invalid request: body.sessionId must be an id this server issued (a UUID). See the server README for the request shapes.',
      );
    }
    for (const path of [
      '..%2F..%2Fetc%2Fpasswd',
      '%252e%252e',
      `${UNKNOWN_ID}%00`,
      'ABCDEF00-0000-4000-8000-000000000000',
    ]) {
      const response = await fetch(`${server.url}/api/sessions/${path}`, { method: 'DELETE' });
      expect(response.status, path).toBe(400);
    }
    expect((await fetch(`${server.url}/api/sessions/${UNKNOWN_ID}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('takes a prompt just under the 1 MiB body limit and refuses one byte more with 413', async () => {
    const server = await startTestServer({
      model: echoModel(),
      // The body limit alone is under test: the prompt and context bounds are set above it.
      maxPromptChars: 2_000_000,
      maxContextChars: 4_000_000,
    });
    const envelope = JSON.stringify({ prompt: '' }).length;
    const fits = 'p'.repeat(1024 * 1024 - envelope);
    const accepted = await postJson(`${server.url}/api/chat`, { prompt: fits });
    expect(accepted.status).toBe(200);
    expect(accepted.body.answer).toBe(`echo: ${fits}`);
    const refused = await postJson(`${server.url}/api/chat`, { prompt: `${fits}p` });
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('payload_too_large');
  });

  it('duplicate keys keep the last value (as JSON.parse does) and still pass the schema', async () => {
    const server = await startTestServer({ model: echoModel() });
    const { status, body } = await postJson(`${server.url}/api/chat`, '{"prompt":"first","prompt":"second"}');
    expect(status).toBe(200);
    expect(body.answer).toBe('echo: second');
  });

  it('refuses __proto__ and constructor.prototype keys at any depth with 400', async () => {
    const server = await startTestServer({ model: echoModel() });
    for (const text of [
      '{"prompt":"x","__proto__":{"admin":true}}',
      '{"items":[{"prompt":"x","__proto__":{"polluted":1}}]}',
      '{"prompt":"x","constructor":{"prototype":{"polluted":1}}}',
    ]) {
      const path = text.includes('items') ? '/api/batch' : '/api/chat';
      const { status, body } = await postJson(`${server.url}${path}`, text);
      expect(status, text).toBe(400);
      expect(body.error.code).toBe('bad_request');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('answers 400 (never 500) for JSON nested hundreds of thousands deep', async () => {
    const server = await startTestServer({ model: echoModel() });
    const depth = 400_000;
    for (const text of [
      `{"prompt":"x","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      `{"prompt":"x","deep":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
    ]) {
      const { status, body } = await postJson(`${server.url}/api/chat`, text);
      expect(status).toBe(400);
      expect(body.error.code).toBe('bad_request');
      expectNoInternals(body);
    }
  });

  it('content-type tricks: only JSON (any case, utf-8 charset) is parsed; text/plain, missing or other types get 415', async () => {
    const server = await startTestServer({ model: echoModel() });
    const body = JSON.stringify({ prompt: 'x' });
    const send = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/chat`, { method: 'POST', headers, body }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Json,
      }));
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON; charset=UTF-8']) {
      expect((await send({ 'content-type': type })).status, type).toBe(200);
    }
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'application/jsonx',
    ]) {
      const answer = await send({ 'content-type': type });
      expect(answer.status, type).toBe(415);
      expect(answer.body.error.code).toBe('unsupported_media_type');
      expect(answer.body.error.message).toContain('Content-Type: application/json');
    }
    // Without any content-type (a raw request, so no client adds one).
    const raw = await rawRequest(
      await startTestServer({ model: echoModel() }),
      `POST /api/chat HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 415 /);
  });

  it('refuses a batch of 10,000 items with a clear 400 instead of queueing them', async () => {
    const server = await startTestServer({ model: echoModel() });
    const items = Array.from({ length: 10_000 }, (_, index) => ({ id: index, prompt: 'x' }));
    const { status, body } = await postJson(`${server.url}/api/batch`, { items });
    expect(status).toBe(400);
    expect(body.error.message).toBe(
      'Invalid request: body.items must NOT have more than 1000 items. See the server README for the request shapes.',
    );
  });

  it('GET of a job id that never existed is 404; a malformed one is 400; neither leaks internals', async () => {
    const server = await startTestServer({ model: echoModel() });
    const missing = await fetch(`${server.url}/api/batch/${UNKNOWN_ID}`);
    expect(missing.status).toBe(404);
    const missingBody: Json = await missing.json();
    expect(missingBody.error.code).toBe('not_found');
    expectNoInternals(missingBody);
    const malformed = await fetch(`${server.url}/api/batch/%2E%2E%2F%2E%2E%2Fpackage.json`);
    expect(malformed.status).toBe(400);
    expectNoInternals(await malformed.json());
  });
});

describe('red team: failures never carry stacks or internal paths', () => {
  it('a model that throws a plain error with a path and a stack: the client sees a generic model error', async () => {
    const model: Model = {
      id: 'leaky',
      generate: async () => {
        const error = new Error("ENOENT: no such file or directory, open '/work/secret/config.ts'");
        error.stack = `Error: boom\n    at load (/work/secret/config.ts:12:3)\n    at node:internal/process`;
        throw error;
      },
    };
    const server = await startTestServer({ model });
    const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'x' });
    expect(status).toBe(200);
    expect(body.status).toBe('model_error');
    expect(body.error).toBe(UNEXPECTED_MODEL_ERROR);
    expectNoInternals(body);
    const events = await readSse(
      await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ prompt: 'x' }),
      }),
    );
    expect(events.at(-1)?.type).toBe('run_end');
    expectNoInternals(events);
  });
});

describe('red team: event streams', () => {
  function streamingModel(text: string): Model {
    return {
      id: 'streamer',
      generate: async () => ({ content: text }),
      async *stream(): AsyncIterable<ModelStreamPart> {
        for (const piece of text.split(/(?=[\n\r\u2028\u2029])/)) yield { type: 'text_delta', text: piece };
        yield { type: 'response', response: { content: text } };
      },
    };
  }

  it('model text with \\n\\n data:, lone \\r, U+2028/U+2029 and "event:" never splits or forges a frame', async () => {
    const forged =
      'a\n\ndata: {"type":"run_end","status":"completed"}\n\n' +
      'b\rdata: {"type":"tool_start"}\r\r' +
      'c\u2028data: {"type":"run_end"}\u2029d\u0085data: x\r\n\r\nevent: run_end\nid: 9\nretry: 1\n: comment';
    const server = await startTestServer({ model: streamingModel(forged) });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    const raw = await response.text();
    // SSE parsers split lines at CR, LF or CRLF; Python's splitlines also at NEL, U+2028 and U+2029: there
    // must be no line but the server's own `id: <n>`, `event: <type>`, `data: <json>` and blanks for any of them.
    expect(raw).not.toMatch(/[\u0085\u2028\u2029]/);
    const lines = raw.split(/\r\n|\r|\n/).filter((line) => line !== '');
    for (const line of lines)
      expect(line).toMatch(/^(data: \{.*\}|id: \d+|event: (text_delta|tool_start|tool_end|model_error|run_end))$/);
    const events = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    expect(lines.filter((line) => line.startsWith('event: '))).toHaveLength(events.length);
    expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool_start')).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', answer: forged });
    expect(
      events
        .filter((event) => event.type === 'text_delta')
        .map((event) => event.text)
        .join(''),
    ).toBe(forged);
  });

  it('streams up to the run limit, answers the next one 503 as JSON, and every stream still ends with run_end', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, maxConcurrentRuns: 2 });
    const open = () =>
      fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ prompt: 'x' }),
      });
    const first = open();
    const second = open();
    await gated.started;
    await expect
      .poll(async () => ((await (await fetch(`${server.url}/ready`)).json()) as Json).activeRuns, { timeout: 10_000 })
      .toBe(2);
    const third = await open();
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await third.json()) as Json).error.code).toBe('busy');
    gated.release();
    for (const response of [await first, await second]) {
      expect((await readSse(response)).at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
    }
  });

  it('shutdown with several streams open ends each with run_end aborted and closes every connection', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, shutdownGraceMs: 20 });
    const responses = await Promise.all(
      [1, 2, 3].map(() =>
        fetch(`${server.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ prompt: 'x' }),
        }),
      ),
    );
    await gated.started;
    await expect.poll(() => server.app.server.listening && connections(server), { timeout: 10_000 }).toBe(3);
    const [streams] = await Promise.all([Promise.all(responses.map(readSse)), server.shutdown()]);
    for (const events of streams) expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'aborted' });
    expect(await connections(server)).toBe(0);
  });
});

describe('red team: connections', () => {
  it('a slowloris client dripping its headers is cut at headersTimeoutMs', async () => {
    const server = await startTestServer({ model: echoModel(), headersTimeoutMs: 200, requestTimeoutMs: 5_000 });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (data) => {
      received += data;
    });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
    const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 20);
    await closed;
    clearInterval(drip);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('after a client aborts, the server keeps no socket of its request (the one left is the client spare, cut by headersTimeoutMs)', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, headersTimeoutMs: 200, keepAliveTimeoutMs: 600_000 });
    const remotePorts: number[] = [];
    const firstBytes = new Map<number, string>();
    server.app.server.on('connection', (socket) => {
      const port = socket.remotePort as number;
      remotePorts.push(port);
      socket.once('data', (data) => firstBytes.set(port, String(data).slice(0, 20)));
    });
    const controller = new AbortController();
    const request = fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x' }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await gated.started;
    controller.abort();
    await gated.aborted;
    await request;
    // Node's fetch (undici) may open a fresh connection after an abort and send nothing on it; it is not
    // the aborted request's socket, and the headers timeout closes it. Nothing lingers for keep-alive.
    await expect.poll(() => connections(server), { timeout: 5_000 }).toBe(0);
    expect(firstBytes.get(remotePorts[0] as number)).toMatch(/^POST \/api\/chat/);
    for (const port of remotePorts.slice(1)) expect(firstBytes.has(port)).toBe(false);
  });
});
