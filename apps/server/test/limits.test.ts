import { connect } from 'node:net';
import type { Model, ModelStreamPart } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { deferred, echoModel, gatedModel, json, postJson, startTestServer } from './helpers';

/** Sends raw bytes and resolves with everything the server answered before it closed the connection. */
function rawExchange(url: string, chunks: string[]): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      received += data;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

describe('request validation', () => {
  it.each([
    [{}, 'Invalid request: body is missing the required property "prompt".'],
    [{ prompt: '' }, 'Invalid request: body.prompt must NOT have fewer than 1 characters.'],
    [{ prompt: 5 }, 'Invalid request: body.prompt must be string.'],
    [{ prompt: 'x', maxSteps: '3' }, 'Invalid request: body.maxSteps must be integer.'],
    [{ prompt: 'x', maxSteps: 51 }, 'Invalid request: body.maxSteps must be <= 50.'],
    [{ prompt: 'x', extra: true }, 'Invalid request: body has an unknown property "extra".'],
    [{ prompt: 'x', sessionId: 'abc' }, 'Invalid request: body.sessionId must be an id this server issued (a UUID).'],
    [['prompt'], 'Invalid request: body must be object.'],
  ])('answers 400 with a clear message for %j', async (body, message) => {
    const server = await startTestServer({ model: echoModel() });
    const response = await postJson(`${server.url}/api/chat`, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'bad_request',
      message: `${message} See the server README for the request shapes.`,
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await postJson(`${server.url}/api/chat`, '{"prompt": "x",');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('bad_request');
    expect(response.body.error.message).toMatch(/JSON/);
  });

  it('refuses JSON that tries prototype poisoning', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await postJson(`${server.url}/api/chat`, '{"prompt": "x", "__proto__": {"admin": true}}');
    expect(response.status).toBe(400);
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<prompt>hello</prompt>',
    });
    expect(response.status).toBe(415);
    expect((await json(response)).error.code).toBe('unsupported_media_type');
  });

  it('answers 413 for a body over 1 MiB, without reading all of it', async () => {
    const server = await startTestServer({
      model: echoModel(),
      // The body limit alone is under test: the prompt and context bounds are set above it.
      maxPromptChars: 2_000_000,
      maxContextChars: 4_000_000,
    });
    const response = await postJson(`${server.url}/api/chat`, { prompt: 'x'.repeat(1024 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
    const justUnder = await postJson(`${server.url}/api/chat`, { prompt: 'y'.repeat(1024 * 1024 - 20) });
    expect(justUnder.status).toBe(200);
  });

  it('answers 404 as JSON for unknown routes', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await fetch(`${server.url}/api/nothing?x=1`);
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({
      code: 'not_found',
      message: 'No route GET /api/nothing: see the server README for the API.',
    });
  });
});

describe('run limits', () => {
  it('refuses runs beyond maxConcurrentRuns with 503 and Retry-After', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, maxConcurrentRuns: 1 });
    const first = postJson(`${server.url}/api/chat`, { prompt: 'slow' });
    await gated.started;
    const second = await postJson(`${server.url}/api/chat`, { prompt: 'too many' });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.body.error).toMatchObject({
      code: 'busy',
      message: 'The server is running its maximum of 1 runs: retry shortly.',
    });
    gated.release();
    expect((await first).body).toMatchObject({ status: 'completed', answer: 'released' });
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'now' })).status).toBe(200);
  });

  it('ends a run at the per-run deadline with status timeout', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, runTimeoutMs: 50 });
    const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'forever' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'timeout', steps: 0 });
    expect(body.error).toMatch(/50 ?ms|timed out|timeout/i);
  });

  it('refuses a second prompt on a session while one is running (409), and its deletion too', async () => {
    const gated = gatedModel();
    let calls = 0;
    const model: Model = {
      id: 'first-instant',
      generate: (request) => (calls++ === 0 ? echoModel().generate(request) : gated.model.generate(request)),
    };
    const server = await startTestServer({ model });
    const created = await postJson(`${server.url}/api/chat`, { prompt: 'start' });
    const sessionId = created.body.sessionId as string;
    const running = postJson(`${server.url}/api/chat`, { prompt: 'slow', sessionId });
    await gated.started;
    const clash = await postJson(`${server.url}/api/chat`, { prompt: 'meanwhile', sessionId });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('session_busy');
    const deletion = await fetch(`${server.url}/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(deletion.status).toBe(409);
    gated.release();
    expect((await running).body).toMatchObject({ status: 'completed', sessionId });
  });
});

describe('slow clients', () => {
  it('closes a connection whose headers do not arrive within headersTimeoutMs', async () => {
    const server = await startTestServer({ model: echoModel(), headersTimeoutMs: 200, requestTimeoutMs: 5000 });
    const answer = await rawExchange(server.url, ['POST /api/chat HTTP/1.1\r\nHost: localhost\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection whose body does not arrive within requestTimeoutMs', async () => {
    const server = await startTestServer({ model: echoModel(), headersTimeoutMs: 200, requestTimeoutMs: 300 });
    const answer = await rawExchange(server.url, [
      'POST /api/chat HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"prompt":',
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('aborts the run of an event-stream client that stops reading', async () => {
    const aborted = deferred<void>();
    const chunk = 'x'.repeat(64 * 1024);
    const model: Model = {
      id: 'firehose',
      generate: async () => ({ content: 'unused' }),
      async *stream(request): AsyncIterable<ModelStreamPart> {
        request.signal.addEventListener('abort', () => aborted.resolve());
        // Far more than the socket buffers can hold for a reader that never reads.
        for (let i = 0; i < 2000 && !request.signal.aborted; i += 1) {
          yield { type: 'text_delta', text: chunk };
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield { type: 'response', response: { content: 'done' } };
      },
    };
    const server = await startTestServer({ model, maxSseBufferBytes: 256 * 1024 });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    const body = JSON.stringify({ prompt: 'flood me' });
    socket.write(
      `POST /api/chat HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    socket.pause(); // never read
    await aborted.promise;
    socket.destroy();
    await expect
      .poll(async () => (await fetch(`${server.url}/ready`).then(json)).activeRuns, { timeout: 10_000 })
      .toBe(0);
  });
});
