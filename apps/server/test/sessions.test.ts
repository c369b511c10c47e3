import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../src/index';
import { echoModel, json, postJson, startTestServer } from './helpers';

describe('DELETE /api/sessions/:id', () => {
  it('forgets a conversation: 204, then the id is unknown', async () => {
    const server = await startTestServer({ model: echoModel() });
    const { body } = await postJson(`${server.url}/api/chat`, { prompt: 'hi' });
    const deleted = await fetch(`${server.url}/api/sessions/${body.sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    const again = await fetch(`${server.url}/api/sessions/${body.sessionId}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'still there?', sessionId: body.sessionId });
    expect(chat.status).toBe(404);
    expect(chat.body.error.message).toBe(
      `Session ${body.sessionId} does not exist: it was deleted or expired after being idle. Omit sessionId to start a new conversation.`,
    );
  });

  it('answers 400 for an id the server could not have issued', async () => {
    const server = await startTestServer({ model: echoModel() });
    const response = await fetch(`${server.url}/api/sessions/..%2F..%2Fetc`, { method: 'DELETE' });
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toBe(
      'Invalid request: params.id must be an id this server issued (a UUID).',
    );
  });

  it('keeps at most maxSessions conversations (the least recently used goes first)', async () => {
    const server = await startTestServer({ model: echoModel(), maxSessions: 2 });
    const ids: string[] = [];
    for (const prompt of ['a', 'b']) ids.push((await postJson(`${server.url}/api/chat`, { prompt })).body.sessionId);
    await postJson(`${server.url}/api/chat`, { prompt: 'touch a', sessionId: ids[0] });
    ids.push((await postJson(`${server.url}/api/chat`, { prompt: 'c' })).body.sessionId);
    const statuses = [];
    for (const id of ids)
      statuses.push((await postJson(`${server.url}/api/chat`, { prompt: 'again', sessionId: id })).status);
    expect(statuses).toEqual([200, 404, 200]);
  });
});

describe('MemorySessionStore', () => {
  const session = (id: string) => ({ id, messages: [], createdAt: 0, updatedAt: 0 });

  it('expires sessions idle for idleMs, counting reads as use', () => {
    let now = 1000;
    const store = new MemorySessionStore({ maxSessions: 10, idleMs: 100, now: () => now });
    store.set(session('a'));
    store.set(session('b'));
    now = 1050;
    expect(store.get('a')?.id).toBe('a');
    now = 1120;
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')?.id).toBe('a');
    now = 1300;
    expect(store.size).toBe(0);
  });

  it("counts a transcript's characters across turns, and anew for an array changed in place", () => {
    const store = new MemorySessionStore({ maxSessions: 10, idleMs: 1_000_000 });
    const size = (messages: object[]) =>
      messages.reduce((sum: number, message) => sum + JSON.stringify(message).length, 0);
    const first = [{ role: 'user' as const, content: 'one' }];
    store.set({ id: 'a', messages: first, createdAt: 0, updatedAt: 0 });
    expect(store.chars).toBe(size(first));
    // The next turn continues the same message objects (as the routes do).
    const second = [
      ...first,
      { role: 'assistant' as const, content: 'two' },
      { role: 'user' as const, content: 'three' },
    ];
    store.set({ id: 'a', messages: second, createdAt: 0, updatedAt: 0 });
    expect(store.chars).toBe(size(second));
    // A transcript that does not continue the held one is measured whole.
    const other = [{ role: 'user' as const, content: 'something else entirely' }];
    store.set({ id: 'a', messages: other, createdAt: 0, updatedAt: 0 });
    expect(store.chars).toBe(size(other));
    // The same array, grown in place, is measured anew.
    other.push({ role: 'user' as const, content: 'pushed' });
    store.set({ id: 'a', messages: other, createdAt: 0, updatedAt: 0 });
    expect(store.chars).toBe(size(other));
    store.set({ id: 'b', messages: first, createdAt: 0, updatedAt: 0 });
    expect(store.chars).toBe(size(other) + size(first));
    store.delete('a');
    expect(store.chars).toBe(size(first));
  });

  it('lists the most recently used first; a read moves a session to the end', () => {
    let now = 0;
    const store = new MemorySessionStore({ maxSessions: 10, idleMs: 1_000_000, now: () => now++ });
    for (const id of ['a', 'b', 'c']) store.set(session(id));
    store.get('a');
    expect(store.list({ limit: 10 }).map((row) => row.id)).toEqual(['a', 'c', 'b']);
    expect(store.list({ limit: 2 }).map((row) => row.id)).toEqual(['a', 'c']);
    store.delete('c');
    store.set(session('d'));
    expect(store.list({ limit: 10 }).map((row) => row.id)).toEqual(['d', 'a', 'b']);
  });

  it('evicts the least recently used beyond maxSessions and deletes on request', () => {
    let now = 0;
    const store = new MemorySessionStore({ maxSessions: 2, idleMs: 1_000_000, now: () => now++ });
    store.set(session('a'));
    store.set(session('b'));
    store.get('a');
    store.set(session('c'));
    expect(['a', 'b', 'c'].map((id) => store.get(id)?.id)).toEqual(['a', undefined, 'c']);
    expect(store.delete('a')).toBe(true);
    expect(store.delete('a')).toBe(false);
    expect(store.size).toBe(1);
  });
});
