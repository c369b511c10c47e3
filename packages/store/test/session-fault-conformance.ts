import type { Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../src/index';
import { rejection } from './conformance-helpers';
import { eventsOf, timeAt } from './events';
import type { ConformanceTarget } from './store-conformance';

/** The sessions and faults part of the Store conformance suite (called inside `storeConformance`). */
export function sessionAndFaultConformance(
  target: ConformanceTarget,
  open: (options?: OpenStoreOptions) => Promise<Store>,
): void {
  describe('sessions', () => {
    const session = (id: string, minute: number, messages = 2) => ({
      id,
      messages: Array.from({ length: messages }, (_, index) =>
        index % 2 === 0
          ? { role: 'user' as const, content: `question ${index}` }
          : { role: 'assistant' as const, content: `answer ${index}` },
      ),
      createdAt: timeAt(0),
      updatedAt: timeAt(minute * 60),
      meta: { skill: 'assistant', model: 'test:model' },
    });

    it('saves, reads, overwrites, lists newest first and deletes', async () => {
      const store = await open();
      expect(await store.getSession('a')).toBeUndefined();
      await store.saveSession(session('a', 1));
      await store.saveSession(session('b', 2, 1));
      await store.saveSession(session('c', 3, 0));
      expect(await store.getSession('a')).toEqual(session('a', 1));
      await store.saveSession(session('a', 4, 3));
      expect(await store.getSession('a')).toEqual(session('a', 4, 3));
      expect(await store.listSessions()).toEqual([
        { id: 'a', messageCount: 3, createdAt: timeAt(0), updatedAt: timeAt(240) },
        { id: 'c', messageCount: 0, createdAt: timeAt(0), updatedAt: timeAt(180) },
        { id: 'b', messageCount: 1, createdAt: timeAt(0), updatedAt: timeAt(120) },
      ]);
      expect((await store.listSessions({ limit: 1, before: timeAt(240) })).map((row) => row.id)).toEqual(['c']);
      expect(await store.deleteSession('c')).toBe(true);
      expect(await store.deleteSession('c')).toBe(false);
      expect(await store.getSession('c')).toBeUndefined();
      expect((await store.listSessions()).map((row) => row.id)).toEqual(['a', 'b']);
    });

    it('refuses a bad session with a StoreError naming the field', async () => {
      const store = await open({ maxSessionChars: 5000 });
      const good = session('s', 1);
      for (const [bad, message] of [
        [null, 'session must be an object'],
        [{ ...good, id: 42 }, 'session.id must be a non-empty string'],
        [{ ...good, messages: 'hi' }, 'messages must be an array'],
        [{ ...good, createdAt: 'now' }, 'createdAt must be an ISO 8601 time'],
        [{ ...good, updatedAt: undefined }, 'updatedAt must be an ISO 8601 time'],
        [{ ...good, meta: ['x'] }, 'meta must be an object'],
        [{ ...good, meta: { size: 1n } }, 'the session is not JSON'],
        [
          { ...good, messages: [{ role: 'user', content: 'z'.repeat(5000) }] },
          'over the limit of 5000 (maxSessionChars)',
        ],
      ] as const) {
        const error = await rejection(store.saveSession(bad as never));
        expect(error.code).toBe('store_invalid_input');
        expect(error.message).toContain(message);
      }
      expect(await store.listSessions()).toEqual([]);
    });
  });

  describe('faults', () => {
    it('a corrupt journal row fails readRun naming run and sequence; other runs still read and list', async () => {
      const store = await open();
      const e = eventsOf('bad');
      await store.appendEvents('bad', [e.start(0), e.modelStart(1), e.end(2)]);
      await store.appendEvents('good', [eventsOf('good').start(0)]);
      for (const [text, why] of [
        ['{"type":"model_start", trunc', 'its JSON does not parse'],
        ['[1,2]', 'it is not a JSON object'],
        [JSON.stringify({ ...e.modelStart(1), sequence: 9 }), 'does not match the row'],
        [JSON.stringify({ ...e.modelStart(1), timestamp: 'never' }), 'its timestamp is not a time'],
      ]) {
        await target.corruptEvent(store, 'bad', 1, text as string);
        const error = await rejection(store.readRun('bad'));
        expect(error.code).toBe('store_corrupt');
        expect(error.message).toContain('run "bad" has a corrupt journal row at sequence 1');
        expect(error.message).toContain(why);
      }
      expect((await store.readRun('good'))?.status).toBe('running');
      expect((await store.listRuns()).map((row) => [row.runId, row.status])).toEqual([
        ['bad', 'completed'],
        ['good', 'running'],
      ]);
    });

    it('a corrupt session fails getSession naming it; others still read', async () => {
      const store = await open();
      const base = { messages: [], createdAt: timeAt(0), updatedAt: timeAt(1) };
      await store.saveSession({ id: 'bad', ...base });
      await store.saveSession({ id: 'good', ...base });
      await target.corruptSession(store, 'bad', '{"id":"bad","messages":');
      const error = await rejection(store.getSession('bad'));
      expect(error.code).toBe('store_corrupt');
      expect(error.message).toContain('session "bad" is corrupt');
      expect(await store.getSession('good')).toEqual({ id: 'good', ...base });
    });

    it('close() is idempotent; every method of a closed store rejects with store_closed', async () => {
      const store = await target.open();
      await store.appendEvents('r1', [eventsOf('r1').start(0)]);
      await Promise.all([store.close(), store.close()]);
      await store.close();
      const calls: [string, () => Promise<unknown>][] = [
        ['appendEvents', () => store.appendEvents('r1', [eventsOf('r1').modelStart(1)])],
        ['readRun', () => store.readRun('r1')],
        ['listRuns', () => store.listRuns()],
        ['getSession', () => store.getSession('s')],
        ['saveSession', () => store.saveSession({ id: 's', messages: [], createdAt: timeAt(0), updatedAt: timeAt(0) })],
        ['deleteSession', () => store.deleteSession('s')],
        ['listSessions', () => store.listSessions()],
      ];
      for (const [method, call] of calls) {
        const error = await rejection(call());
        expect(error.code).toBe('store_closed');
        expect(error.message).toContain(`${method}: the store`);
      }
    });
  });
}
