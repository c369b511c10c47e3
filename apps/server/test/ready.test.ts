import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { json, startTestServer } from './helpers';

const TOKEN = 'a-test-token-0123456789abcdef';
const SECRET_ID = 'openai-compatible:http://user:hunter2@llm.internal:8080/v1?api-key=sk-secret&x=1#llama3.2';

describe('GET /ready never shows credentials', () => {
  it('strips user info and query keys from the model id', async () => {
    const model = { ...scriptedModel([]), id: SECRET_ID };
    const server = await startTestServer({ model });
    const text = await (await fetch(`${server.url}/ready`)).text();
    expect(JSON.parse(text)).toEqual({
      status: 'ready',
      model: 'openai-compatible:http://llm.internal:8080/v1#llama3.2',
      activeRuns: 0,
    });
    expect(text).not.toMatch(/hunter2|sk-secret|user/);
  });

  it('resolved from BRIDLE_MODEL too', async () => {
    const server = await startTestServer({ env: { BRIDLE_MODEL: SECRET_ID } });
    const text = await (await fetch(`${server.url}/ready`)).text();
    expect(JSON.parse(text).model).toBe('openai-compatible:http://llm.internal:8080/v1#llama3.2');
  });

  it('shows only the status without the token, and the details with it', async () => {
    const model = { ...scriptedModel([]), id: SECRET_ID };
    const server = await startTestServer({ model, apiToken: TOKEN });
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }] as Record<string, string>[]) {
      const response = await fetch(`${server.url}/ready`, { headers });
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ status: 'ready' });
    }
    const authorized = await fetch(`${server.url}/ready`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await json(authorized)).toEqual({
      status: 'ready',
      model: 'openai-compatible:http://llm.internal:8080/v1#llama3.2',
      activeRuns: 0,
    });
  });

  it('says why it is not ready only with the token, and never with credentials', async () => {
    const bad = 'openai-compatible:ftp://user:hunter2@llm.internal/v1#m';
    const server = await startTestServer({ env: { BRIDLE_MODEL: bad, BRIDLE_API_TOKEN: TOKEN } });
    const anonymous = await fetch(`${server.url}/ready`);
    expect(anonymous.status).toBe(503);
    expect((await json(anonymous)).error).toMatchObject({
      code: 'not_ready',
      message: 'The server is not ready: no model is available.',
    });
    const authorized = await fetch(`${server.url}/ready`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authorized.status).toBe(503);
    const message = (await json(authorized)).error.message as string;
    expect(message).toContain('ftp://llm.internal/v1');
    expect(message).not.toContain('hunter2');
    const chat = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect(chat.status).toBe(503);
    expect(await chat.text()).not.toContain('hunter2');
  });
});
