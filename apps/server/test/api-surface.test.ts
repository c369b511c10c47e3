import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { scriptedModel } from '@bridle/testing';
import OpenAI, { RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { defaultLogger } from '../src/server-logger';
import { echoModel, type Json, json, postJson, rawRequest, startTestServer } from './helpers';

const TOKEN = 'a-test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

describe('GET /openapi.json', () => {
  it('documents every /api and /v1 route and /health, /ready; it needs the token', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: TOKEN });
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(401);
    const document = await json(await fetch(`${server.url}/openapi.json`, { headers: auth }));
    expect(document.openapi).toBe('3.0.3');
    const routes = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'GET /health',
        'GET /ready',
        'POST /api/chat',
        'POST /api/ui/chat',
        'DELETE /api/sessions/{id}',
        'GET /api/sessions',
        'GET /api/sessions/{id}',
        'GET /api/runs',
        'GET /api/runs/{id}',
        'GET /api/runs/{id}/events',
        'GET /api/overview',
        'POST /api/runs/{id}/approvals',
        'POST /api/runs/{id}/input',
        'POST /api/runs/{id}/cancel',
        'POST /api/batch',
        'GET /api/batch/{id}',
        'DELETE /api/batch/{id}',
        'GET /api/usage',
        'GET /v1/models',
        'GET /v1/models/{model}',
        'POST /v1/chat/completions',
        'POST /v1/responses',
      ].sort(),
    );
    // Each route documents its success response (200; 202 for a started batch and for steering or cancelling
    // a run, 204 for a forgotten session).
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const expected =
          (path === '/api/batch' || path === '/api/runs/{id}/input' || path === '/api/runs/{id}/cancel') &&
          method === 'post'
            ? '202'
            : path === '/api/sessions/{id}' && method === 'delete'
              ? '204'
              : '200';
        expect(Object.keys(operation.responses ?? {}), `${method} ${path}`).toContain(expected);
        if (expected !== '204') expect(operation.responses[expected].content, `${method} ${path}`).toBeDefined();
      }
    }
    expect(
      document.paths['/api/chat'].post.responses['200'].content['application/json'].schema.properties.runId,
    ).toEqual({
      type: 'string',
    });
    expect(document.paths['/api/chat'].post.requestBody.content['application/json'].schema.required).toEqual([
      'prompt',
    ]);
    expect(
      document.paths['/api/runs/{id}/approvals'].post.requestBody.content['application/json'].schema.properties
        .approvals.additionalProperties.anyOf,
    ).toEqual([
      { type: 'boolean' },
      {
        type: 'object',
        required: ['approved'],
        additionalProperties: false,
        properties: { approved: { type: 'boolean' }, digest: { type: 'string', maxLength: 100 } },
      },
    ]);
    expect(document.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/ready'].get.security).toEqual([]);
  });
});

describe('CORS', () => {
  it('is off by default: no CORS headers, even for a preflight', async () => {
    const server = await startTestServer({ model: echoModel() });
    const origin = 'https://app.example';
    const preflight = await rawRequest(server.url, {
      method: 'OPTIONS',
      path: '/api/chat',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const read = await rawRequest(server.url, { path: '/ready', headers: { origin } });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows exactly the origins of BRIDLE_CORS_ORIGINS (which also pass the Origin check)', async () => {
    const server = await startTestServer({
      model: echoModel(),
      env: { BRIDLE_CORS_ORIGINS: 'https://app.example, http://localhost:5173' },
    });
    const preflight = await rawRequest(server.url, {
      method: 'OPTIONS',
      path: '/api/chat',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
    const chat = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { origin: 'http://localhost:5173' },
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(chat.headers['access-control-expose-headers']).toContain('x-session-id');
    const foreign = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { origin: 'https://other.example' },
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps the CORS headers on SSE answers (hijacked replies), so a page of an allowed origin can read them', async () => {
    const server = await startTestServer({ model: echoModel(), env: { BRIDLE_CORS_ORIGINS: 'https://app.example' } });
    const chat = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/chat',
      headers: { origin: 'https://app.example', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(chat.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(chat.headers['access-control-expose-headers']).toContain('x-session-id');
    expect(chat.body).toContain('event: run_end');
  });

  it('refuses an entry that is not an origin, naming it', () => {
    for (const entry of ['*', 'app.example', 'https://app.example/path', 'ftp://app.example']) {
      expect(() => createServer({ env: { BRIDLE_CORS_ORIGINS: entry }, logger: false })).toThrow(
        `Invalid BRIDLE_CORS_ORIGINS entry "${entry}"`,
      );
    }
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After beyond BRIDLE_RATE_LIMIT; /api and /v1 share it; probes are exempt', async () => {
    const server = await startTestServer({ model: echoModel(), apiToken: TOKEN, env: { BRIDLE_RATE_LIMIT: '3/min' } });
    // Requests without the token are refused before they count: they cannot use up the token's budget.
    for (let index = 0; index < 5; index++) {
      expect((await postJson(`${server.url}/api/chat`, { prompt: 'x' })).status).toBe(401);
    }
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'x' }, auth)).status).toBe(200);
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'x' }, auth)).status).toBe(200);
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    expect((await openai.models.list()).data).toHaveLength(2);
    const limited = await postJson(`${server.url}/api/chat`, { prompt: 'x' }, auth);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('BRIDLE_RATE_LIMIT=3/min'),
    });
    const error = await openai.models.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });

  it('counts per client address when the server has no token', async () => {
    const server = await startTestServer({ model: echoModel(), rateLimit: '1/s' });
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'x' })).status).toBe(200);
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'x' })).status).toBe(429);
  });

  it('refuses a malformed setting, naming it', () => {
    for (const text of ['10', '10/h', '0/s', 'fast']) {
      expect(() => createServer({ env: { BRIDLE_RATE_LIMIT: text }, logger: false })).toThrow(
        `Invalid BRIDLE_RATE_LIMIT "${text}": write <n>/s or <n>/min`,
      );
    }
  });
});

describe('BRIDLE_SKILL', () => {
  it('offers the named skills (built-in names and SKILL.md folders); the first is the default of /api/chat', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridle-skill-'));
    await mkdir(join(dir, 'review'));
    await writeFile(
      join(dir, 'review', 'SKILL.md'),
      '---\nname: review\ndescription: Reviews text.\ntools: [calculator]\n---\nReview the text you are given.\n',
    );
    const model = scriptedModel(() => ({ content: 'ok' }));
    const server = await startTestServer({
      model,
      env: { BRIDLE_SKILL: `${relative(process.cwd(), join(dir, 'review'))},analyst` },
    });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'none', maxRetries: 0 });
    expect((await openai.models.list()).data.map((entry) => entry.id)).toEqual(['bridle:review', 'bridle:analyst']);
    await postJson(`${server.url}/api/chat`, { prompt: 'x' });
    expect(model.requests[0]?.system).toContain('Review the text you are given.');
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['calculator']);
  });

  it('makes listen() fail for an unknown skill or a bad folder, naming it', async () => {
    for (const [skill, message] of [
      ['reviewer', 'Unknown skill "reviewer" in BRIDLE_SKILL'],
      ['coding', 'BRIDLE_SKILL=coding needs a workspace'],
      ['./no-such-skill-folder', 'SKILL.md'],
    ]) {
      const server = createServer({
        model: echoModel(),
        env: { BRIDLE_SKILL: skill },
        logger: false,
        port: 0,
        store: 'memory:',
      });
      await expect(server.listen()).rejects.toThrow(message);
      await server.shutdown();
    }
  });
});

describe('logs', () => {
  function capture(isTTY: boolean) {
    const lines: string[] = [];
    const destination = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
      { isTTY },
    );
    return { destination, lines };
  }

  it('are human-readable lines on a terminal and JSON lines otherwise', async () => {
    const tty = capture(true);
    const pretty = await startTestServer({
      model: echoModel(),
      logger: defaultLogger({ NO_COLOR: '1' }, tty.destination),
    });
    await fetch(`${pretty.url}/health`);
    const text = tty.lines.join('');
    expect(text).toMatch(/INFO.*: incoming request/);
    expect(() => JSON.parse(tty.lines[0] as string)).toThrow();
    expect(text).not.toContain(`${String.fromCharCode(27)}[`);

    const pipe = capture(false);
    const plain = await startTestServer({ model: echoModel(), logger: defaultLogger({}, pipe.destination) });
    await fetch(`${plain.url}/health`);
    const entries = pipe.lines
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    expect(entries.map((entry) => entry.msg)).toContain('incoming request');
  });
});
