import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { echoModel, startTestServer } from './helpers';

const client = fileURLToPath(new URL('./fixtures/large-body-client.mjs', import.meta.url));
const MiB = 1024 * 1024;

/** Posts `bytes` to /api/chat from a client process of its own (`http`, `http-chunked` or `fetch`). */
async function postFromAnotherProcess(url: string, bytes: number, mode: 'http' | 'http-chunked' | 'fetch') {
  const { stdout } = await promisify(execFile)(process.execPath, [client, `${url}/api/chat`, String(bytes), mode]);
  return JSON.parse(stdout);
}

/**
 * Posts from a raw socket that neither stops at the answer nor closes its side (allowHalfOpen): it writes
 * `send` bytes of a body of `declared` bytes, as fast as the connection takes them. Resolves once the server
 * has ended its side (`until: 'end'`) or the connection is gone (`'close'`), with what it read, how much it
 * wrote, and the socket.
 */
function rawPost(
  url: string,
  { declared, send, until = 'end' }: { declared: number; send: number; until?: 'end' | 'close' },
) {
  const { hostname, port } = new URL(url);
  return new Promise<{ answer: string; sent: number; socket: Socket }>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    sockets.push(socket);
    let answer = '';
    let sent = 0;
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      answer += text;
    });
    socket.on('error', () => {});
    if (until === 'end') socket.on('end', () => resolve({ answer, sent, socket }));
    socket.on('close', () => resolve({ answer, sent, socket }));
    socket.write(
      `POST /api/chat HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
    );
    const piece = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (sent < send && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

const refused = {
  status: 413,
  connection: 'close',
  body: {
    error: { code: 'payload_too_large', message: 'Request body is too large', requestId: expect.any(String) },
  },
};

// Each case is repeated: before the fix, the answer was lost to a reset in most attempts, not in all.
describe('a body over the limit, from a client still sending it', { timeout: 120_000 }, () => {
  it('node:http with Content-Length reads the 413 JSON answer and Connection: close', async () => {
    const server = await startTestServer({ model: echoModel() });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await postFromAnotherProcess(server.url, 32 * MiB, 'http')).toEqual(refused);
    }
  });

  it('node:http with a chunked body reads the 413 JSON answer', async () => {
    const server = await startTestServer({ model: echoModel() });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await postFromAnotherProcess(server.url, 32 * MiB, 'http-chunked')).toEqual(refused);
    }
  });

  it('fetch reads the 413 JSON answer', async () => {
    const server = await startTestServer({ model: echoModel() });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await postFromAnotherProcess(server.url, 32 * MiB, 'fetch')).toEqual(refused);
    }
  });

  it('the server reads at most 8 MiB after answering, then stops reading and closes: a client sending forever is cut', async () => {
    const server = await startTestServer({ model: echoModel() });
    const outcome = await rawPost(server.url, { declared: 1024 * MiB, send: 1024 * MiB, until: 'close' });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(outcome.answer).toMatch(/\r\nconnection: close\r\n/);
    // The 1 MiB limit, the 8 MiB drained after the answer, and what the sockets' buffers held.
    expect(outcome.sent).toBeLessThan(64 * MiB);
  });

  it('a client that stops sending mid-body gets the answer, and the server closes the connection after a while', async () => {
    const server = await startTestServer({ model: echoModel() });
    const outcome = await rawPost(server.url, { declared: 4 * MiB, send: 2 * MiB });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(outcome.sent).toBe(2 * MiB);
    // The client keeps its side open and sends nothing more: the server still lets the connection go.
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    await expect.poll(connections, { timeout: 30_000, interval: 100 }).toBe(0);
    expect(outcome.socket.destroyed).toBe(false);
  });

  it('an answer given before the body is read (401) is bounded the same way, not read to its end', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: 'a-test-token-0123456789abcdef' });
    const outcome = await rawPost(server.url, { declared: 1024 * MiB, send: 1024 * MiB, until: 'close' });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(outcome.answer).toMatch(/\r\nconnection: close\r\n/);
    expect(outcome.sent).toBeLessThan(64 * MiB);
  });

  it('a body under the limit on the same server still works, and keeps its connection', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'small' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('keep-alive');
  });
});
