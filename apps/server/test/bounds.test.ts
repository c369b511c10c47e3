import type { ModelRequest } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { createServer, MemorySessionStore } from '../src/index';
import { echoModel, postJson, startTestServer } from './helpers';

/** An echo model that keeps every request it saw. */
function recordingModel() {
  const requests: ModelRequest[] = [];
  const model = scriptedModel((request) => {
    requests.push(request);
    return { content: 'ok', usage: { inputTokens: 1, outputTokens: 1 } };
  });
  return { model, requests };
}

describe('server bounds, whatever clients send', () => {
  it('refuses a prompt longer than BRIDLE_MAX_PROMPT_CHARS (default 200000) with 413 naming it', async () => {
    const { model, requests } = recordingModel();
    const server = await startTestServer({ model });
    const long = await postJson(`${server.url}/api/chat`, { prompt: 'x'.repeat(200_001) });
    expect(long.status).toBe(413);
    expect(long.body.error).toMatchObject({
      code: 'payload_too_large',
      message:
        'The prompt has 200001 characters, more than BRIDLE_MAX_PROMPT_CHARS=200000: shorten it, or raise the setting.',
    });
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'x'.repeat(200_000) })).status).toBe(200);
    const batch = await postJson(`${server.url}/api/batch`, {
      items: [{ prompt: 'ok' }, { prompt: 'x'.repeat(200_001) }],
    });
    expect(batch.status).toBe(413);
    expect(batch.body.error.message).toBe(
      'items[1].prompt has 200001 characters, more than BRIDLE_MAX_PROMPT_CHARS=200000: shorten it, or raise the setting.',
    );
    expect(requests).toHaveLength(1);
  });

  it('refuses a turn that would take a session past BRIDLE_MAX_SESSION_CHARS with 413 naming it', async () => {
    const { model, requests } = recordingModel();
    const server = await startTestServer({ model, env: { BRIDLE_MAX_SESSION_CHARS: '1000' } });
    const first = await postJson(`${server.url}/api/chat`, { prompt: 'a'.repeat(300) });
    expect(first.status).toBe(200);
    const sessionId = first.body.sessionId;
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'b'.repeat(300), sessionId })).status).toBe(200);
    const full = await postJson(`${server.url}/api/chat`, { prompt: 'c'.repeat(300), sessionId });
    expect(full.status).toBe(413);
    expect(full.body.error.code).toBe('payload_too_large');
    expect(full.body.error.message).toMatch(
      new RegExp(
        `^Session ${sessionId} holds \\d+ characters: this turn would take it past BRIDLE_MAX_SESSION_CHARS=1000\\. Start a new session \\(omit sessionId\\)\\.$`,
      ),
    );
    expect(requests).toHaveLength(2);
    // A new conversation still works.
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'c'.repeat(300) })).status).toBe(200);
  });

  it('keeps at most BRIDLE_MAX_MEMORY_SESSIONS sessions, evicting the least recently used', async () => {
    const server = await startTestServer({ model: echoModel(), env: { BRIDLE_MAX_MEMORY_SESSIONS: '2' } });
    const ids: string[] = [];
    for (const prompt of ['a', 'b']) ids.push((await postJson(`${server.url}/api/chat`, { prompt })).body.sessionId);
    await postJson(`${server.url}/api/chat`, { prompt: 'touch a', sessionId: ids[0] });
    ids.push((await postJson(`${server.url}/api/chat`, { prompt: 'c' })).body.sessionId);
    const statuses = [];
    for (const id of ids)
      statuses.push((await postJson(`${server.url}/api/chat`, { prompt: 'again', sessionId: id })).status);
    expect(statuses).toEqual([200, 404, 200]);
  });

  it('bounds the characters held by all in-memory sessions together (least recently used evicted)', () => {
    const store = new MemorySessionStore({ maxSessions: 100, idleMs: 60_000, maxChars: 1000 });
    const session = (id: string, chars: number) => ({
      id,
      messages: [{ role: 'user' as const, content: 'x'.repeat(chars) }],
      createdAt: 0,
      updatedAt: 0,
    });
    store.set(session('a', 400));
    store.set(session('b', 400));
    store.get('a');
    store.set(session('c', 400));
    expect([store.get('a') !== undefined, store.get('b') !== undefined, store.get('c') !== undefined]).toEqual([
      true,
      false,
      true,
    ]);
    expect(store.chars).toBeLessThanOrEqual(1000);
    store.set(session('a', 10));
    expect(store.chars).toBeLessThan(500);
  });

  it('refuses a memory budget smaller than one session', () => {
    expect(() =>
      createServer({
        env: { BRIDLE_MAX_SESSION_CHARS: '5000', BRIDLE_MAX_MEMORY_SESSION_CHARS: '4000' },
        logger: false,
      }),
    ).toThrow(
      'BRIDLE_MAX_MEMORY_SESSION_CHARS (4000) must be at least BRIDLE_MAX_SESSION_CHARS (5000): one full session must fit in memory.',
    );
  });

  it('gives every run a context budget: BRIDLE_MAX_CONTEXT_CHARS (default 400000)', async () => {
    const { model, requests } = recordingModel();
    const server = await startTestServer({ model, env: { BRIDLE_MAX_CONTEXT_CHARS: '500' } });
    const first = await postJson(`${server.url}/api/chat`, { prompt: `first ${'a'.repeat(150)}` });
    const sessionId = first.body.sessionId;
    await postJson(`${server.url}/api/chat`, { prompt: `second ${'b'.repeat(150)}`, sessionId });
    await postJson(`${server.url}/api/chat`, { prompt: `third ${'c'.repeat(150)}`, sessionId });
    const sent = requests[2]?.messages
      .filter((message) => message.role === 'user')
      .map((message) => String(message.content).split(' ')[0]);
    // The first user message and the newest that fit are kept; the middle turn is left out.
    expect(sent).toEqual(['first', 'third']);
  });
});
