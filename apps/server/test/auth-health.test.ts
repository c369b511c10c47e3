import { Writable } from 'node:stream';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { echoModel, json, postJson, startTestServer } from './helpers';

const TOKEN = 'a-test-token-0123456789abcdef';

describe('bearer token', () => {
  it('guards every /api route when BRIDLE_API_TOKEN is set, but not /health and /ready', async () => {
    const server = await startTestServer({ model: echoModel(), env: { BRIDLE_API_TOKEN: TOKEN } });
    const missing = await postJson(`${server.url}/api/chat`, { prompt: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body.error).toMatchObject({
      code: 'unauthorized',
      message: 'This server needs an API token: send the header "Authorization: Bearer <BRIDLE_API_TOKEN>".',
    });
    for (const header of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN, 'Bearer ']) {
      const wrong = await postJson(`${server.url}/api/chat`, { prompt: 'x' }, { authorization: header });
      expect(wrong.status).toBe(401);
    }
    const deletion = await fetch(`${server.url}/api/sessions/00000000-0000-4000-8000-000000000000`, {
      method: 'DELETE',
    });
    expect(deletion.status).toBe(401);
    const batch = await fetch(`${server.url}/api/batch/00000000-0000-4000-8000-000000000000`);
    expect(batch.status).toBe(401);
    const right = await postJson(`${server.url}/api/chat`, { prompt: 'x' }, { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });

  it('checks the token before validating the body', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: TOKEN });
    expect((await postJson(`${server.url}/api/chat`, '{not json')).status).toBe(401);
  });

  it('answers unknown /api paths 401 without the token, 404 with it; other unknown paths 404', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: TOKEN });
    const probe = await fetch(`${server.url}/api/admin`);
    expect(probe.status).toBe(401);
    const known = await fetch(`${server.url}/api/admin`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(known.status).toBe(404);
    expect(await json(known)).toMatchObject({
      error: { code: 'not_found', message: expect.stringContaining('GET /api/admin') },
    });
    expect((await fetch(`${server.url}/elsewhere`)).status).toBe(404);
  });

  it('refuses to start on a non-loopback host without a token', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      expect(() => createServer({ env: { HOST: host }, logger: false })).toThrow(
        `Refusing to listen on ${host} without an API token`,
      );
    }
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      expect(() => createServer({ env: { HOST: host }, logger: false, model: echoModel() })).not.toThrow();
    }
    expect(() => createServer({ host: '0.0.0.0', apiToken: TOKEN, logger: false, env: {} })).not.toThrow();
  });

  it('refuses a short token', () => {
    const error = (() => {
      try {
        createServer({ env: { BRIDLE_API_TOKEN: 'short' }, logger: false });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/at least 16 characters/);
  });
});

describe('GET /health and GET /ready', () => {
  it('is live and ready with a model', async () => {
    const server = await startTestServer({ model: echoModel() });
    expect(await json(await fetch(`${server.url}/health`))).toEqual({ status: 'ok' });
    expect(await json(await fetch(`${server.url}/ready`))).toEqual({
      status: 'ready',
      model: 'scripted:model',
      activeRuns: 0,
    });
  });

  it('is live but not ready without a model, saying which variable to set; chat answers 503 too', async () => {
    const server = await startTestServer({ env: {} });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(503);
    const body = await json(ready);
    expect(body.error.code).toBe('not_ready');
    expect(body.error.message).toMatch(
      /^No model is available: No model configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY/,
    );
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'x' });
    expect(chat.status).toBe(503);
    expect(chat.body.error.code).toBe('not_ready');
  });

  it('is not ready when BRIDLE_MODEL names a provider whose key is missing', async () => {
    const server = await startTestServer({ env: { BRIDLE_MODEL: 'anthropic:claude-sonnet-4-6' } });
    const body = await json(await fetch(`${server.url}/ready`));
    expect(body.error.message).toMatch(/needs ANTHROPIC_API_KEY/);
  });
});

describe('logs', () => {
  it('logs each request as JSON with its request id (the one sent back in x-request-id)', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const server = await startTestServer({ model: echoModel(), logger: { level: 'info', stream } });
    const { headers } = await postJson(`${server.url}/api/chat`, { prompt: 'log me' });
    const requestId = headers.get('x-request-id');
    const entries = lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string });
    const mine = entries.filter((entry) => entry.reqId === requestId).map((entry) => entry.msg);
    expect(mine).toEqual(['incoming request', 'run ended', 'request completed']);
    expect(lines.join('\n')).not.toContain('log me');
  });

  it('never sends a stack trace: an internal failure is a 500 with a generic message', async () => {
    const server = await startTestServer({
      model: echoModel(),
      sessionStore: {
        get: () => {
          throw new Error('database password is hunter2');
        },
        set: () => {},
        delete: () => false,
      },
    });
    const response = await postJson(`${server.url}/api/chat`, {
      prompt: 'x',
      sessionId: '00000000-0000-4000-8000-000000000000',
    });
    expect(response.status).toBe(500);
    expect(response.body.error).toEqual({
      code: 'internal',
      message: 'Internal server error: the failure was logged with this request id.',
      requestId: response.headers.get('x-request-id'),
    });
  });
});
