import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { echoModel, rawRequest, startTestServer } from './helpers';

const TOKEN = 'a-test-token-0123456789abcdef';
const CHAT = JSON.stringify({ prompt: 'hi' });

describe('Host header (DNS rebinding)', () => {
  it('refuses a foreign Host on every route, before the model is called', async () => {
    let calls = 0;
    const model = echoModel();
    const counted = {
      ...model,
      generate: (request: Parameters<typeof model.generate>[0]) => {
        calls++;
        return model.generate(request);
      },
    };
    const server = await startTestServer({ model: counted });
    const port = new URL(server.url).port;
    for (const host of [
      `rebind.attacker.example:${port}`,
      'attacker.example',
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const chat = await rawRequest(server.url, { method: 'POST', path: '/api/chat', headers: { host }, body: CHAT });
      expect(chat.status).toBe(403);
      expect(JSON.parse(chat.body).error).toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining('BRIDLE_ALLOWED_HOSTS'),
      });
      expect((await rawRequest(server.url, { path: '/ready', headers: { host } })).status).toBe(403);
      expect((await rawRequest(server.url, { path: '/health', headers: { host } })).status).toBe(403);
    }
    expect(calls).toBe(0);
  });

  it("gives a refused request its request id: the x-request-id header is the error's requestId", async () => {
    const server = await startTestServer({ model: echoModel() });
    const refused = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { host: 'attacker.example', 'content-type': 'application/json' },
      body: CHAT,
    });
    expect(refused.status).toBe(403);
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(refused.body).error.requestId).toBe(refused.headers['x-request-id']);
  });

  it('judges each request by its own Host: an accepted one before does not let a foreign one through', async () => {
    const server = await startTestServer({ model: echoModel() });
    const port = new URL(server.url).port;
    for (const [host, status] of [
      [`127.0.0.1:${port}`, 200],
      [`127.0.0.1:${port}`, 200],
      [`attacker.example:${port}`, 403],
      [`127.0.0.1:${port}`, 200],
      [`attacker.example:${port}`, 403],
    ] as const) {
      expect((await rawRequest(server.url, { path: '/health', headers: { host } })).status).toBe(status);
    }
  });

  it('accepts loopback names, and the names in BRIDLE_ALLOWED_HOSTS (any case, any port)', async () => {
    const server = await startTestServer({
      model: echoModel(),
      env: { BRIDLE_ALLOWED_HOSTS: 'bridle.internal, Agents.Example.com' },
    });
    const port = new URL(server.url).port;
    for (const host of [
      `localhost:${port}`,
      'localhost',
      `127.0.0.1:${port}`,
      '127.0.0.2',
      `[::1]:${port}`,
      'bridle.internal',
      `BRIDLE.internal:${port}`,
      'agents.example.com:443',
    ]) {
      const chat = await rawRequest(server.url, { method: 'POST', path: '/api/chat', headers: { host }, body: CHAT });
      expect([host, chat.status]).toEqual([host, 200]);
    }
    const other = await rawRequest(server.url, { path: '/ready', headers: { host: 'example.com' } });
    expect(other.status).toBe(403);
  });

  it('refuses a malformed BRIDLE_ALLOWED_HOSTS entry, naming it', () => {
    for (const entry of ['http://bridle.internal', 'bridle.internal:8080', 'two words', '*']) {
      expect(() => createServer({ env: { BRIDLE_ALLOWED_HOSTS: entry }, logger: false })).toThrow(
        `Invalid BRIDLE_ALLOWED_HOSTS entry "${entry}"`,
      );
    }
  });
});

describe('Origin header (cross-site requests)', () => {
  it('refuses a foreign or null Origin on state-changing routes, even with the right token', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const origin of ['http://attacker.example', 'null', 'http://localhost:1', 'https://127.0.0.1.nip.io']) {
      const chat = await rawRequest(server.url, {
        method: 'POST',
        path: '/api/chat',
        headers: { ...auth, origin },
        body: CHAT,
      });
      expect([origin, chat.status]).toEqual([origin, 403]);
      expect(JSON.parse(chat.body).error.message).toContain(`Origin ${origin}`);
      const deletion = await rawRequest(server.url, {
        method: 'DELETE',
        path: '/api/sessions/00000000-0000-4000-8000-000000000000',
        headers: { ...auth, origin },
      });
      expect(deletion.status).toBe(403);
      // Reading is not state-changing: CORS (off by default) keeps the answer from the page.
      expect((await rawRequest(server.url, { path: '/ready', headers: { origin } })).status).toBe(200);
    }
  });

  it('accepts requests without an Origin and same-origin ones', async () => {
    const server = await startTestServer({ model: echoModel() });
    const { port } = new URL(server.url);
    const same = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` },
      body: CHAT,
    });
    expect(same.status).toBe(200);
    const sameLocalhost = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { origin: `http://localhost:${port}`, host: `localhost:${port}` },
      body: CHAT,
    });
    expect(sameLocalhost.status).toBe(200);
    const none = await rawRequest(server.url, { method: 'POST', path: '/api/chat', body: CHAT });
    expect(none.status).toBe(200);
  });
});
