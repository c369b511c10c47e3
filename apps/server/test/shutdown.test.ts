import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { gatedModel, postJson, readSse, startTestServer } from './helpers';

describe('graceful shutdown', () => {
  it('stops accepting at once, lets a running run finish within the grace period, then resolves', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, shutdownGraceMs: 60_000 });
    const running = postJson(`${server.url}/api/chat`, { prompt: 'finish me' });
    await gated.started;
    let stopped = false;
    const stopping = server.shutdown().then(() => {
      stopped = true;
    });
    // New connections are refused while the run goes on.
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    expect(stopped).toBe(false);
    gated.release();
    expect((await running).body).toMatchObject({ status: 'completed', answer: 'released' });
    await stopping;
    expect(stopped).toBe(true);
  });

  it('serves the request in flight on a connection but no further one sent during shutdown', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, shutdownGraceMs: 60_000 });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      received += data;
    });
    const ended = new Promise((resolve) => socket.on('close', resolve));
    const body = JSON.stringify({ prompt: 'first' });
    socket.write(
      `POST /api/chat HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await gated.started;
    const stopping = server.shutdown();
    socket.write('GET /ready HTTP/1.1\r\nHost: localhost\r\n\r\n');
    gated.release();
    await stopping;
    await ended;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
    expect(statuses).toEqual(['200']);
    expect(received.toLowerCase()).toContain('connection: close');
  });

  it('aborts runs still going when the grace period ends, and answers their clients', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, shutdownGraceMs: 50 });
    const running = postJson(`${server.url}/api/chat`, { prompt: 'too slow' });
    await gated.started;
    await server.shutdown();
    const { status, body } = await running;
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'aborted', steps: 0 });
    expect(String(await gated.aborted)).toContain('the server is shutting down');
  });

  it('ends an event stream cut by shutdown with its run_end frame', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, shutdownGraceMs: 50 });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'stream then stop' }),
    });
    await gated.started;
    const [events] = await Promise.all([readSse(response), server.shutdown()]);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'aborted' });
  });

  it('is idempotent', async () => {
    const server = await startTestServer({ model: gatedModel().model });
    const first = server.shutdown();
    expect(server.shutdown()).toBe(first);
    await first;
  });
});
