import type { Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../src/index';
import { json, rejection } from './conformance-helpers';
import { eventsOf } from './events';
import type { ConformanceTarget } from './store-conformance';

/** The readEvents part of the Store conformance suite (called inside `storeConformance`). */
export function readEventsConformance(
  open: (options?: OpenStoreOptions) => Promise<Store>,
  target: ConformanceTarget,
): void {
  describe('readEvents: the events after a sequence (what a follower reads as it goes)', () => {
    it('returns the events after `after`, in order, at most `limit`, across gaps; an unknown run reads as []', async () => {
      const store = await open();
      const e = eventsOf('r1');
      const all = [e.start(0), e.modelStart(1), e.modelEnd(2), e.toolStart(5), e.toolEnd(9, 1)];
      await store.appendEvents('r1', all.slice(0, 3));
      await store.appendEvents('r1', all.slice(3));
      await store.appendEvents('r2', [eventsOf('r2').start(0)]);
      expect(await store.readEvents?.('r1', { after: -1 })).toEqual(json(all));
      expect(await store.readEvents?.('r1', { after: 2 })).toEqual(json(all.slice(3)));
      expect(await store.readEvents?.('r1', { after: 3 })).toEqual(json(all.slice(3)));
      expect(await store.readEvents?.('r1', { after: 1, limit: 2 })).toEqual(json(all.slice(2, 4)));
      expect(await store.readEvents?.('r1', { after: 9 })).toEqual([]);
      expect(await store.readEvents?.('nobody', { after: -1 })).toEqual([]);
    });

    it('a bad query is a StoreError (invalid_input) naming the field', async () => {
      const store = await open();
      for (const [query, message] of [
        [{ after: -2 }, 'after must be an integer from -1'],
        [{ after: 1.5 }, 'after must be an integer from -1'],
        [{ after: '3' }, 'after must be an integer from -1'],
        [{ after: 0, limit: 0 }, 'limit must be an integer from 1 to 1000'],
        [{ after: 0, limit: 1001 }, 'limit must be an integer from 1 to 1000'],
      ] as const) {
        const error = await rejection(store.readEvents?.('r1', query as never) as Promise<unknown>);
        expect(error.code).toBe('store_invalid_input');
        expect(error.message).toContain(message);
      }
      expect((await rejection(store.readEvents?.('', { after: 0 }) as Promise<unknown>)).code).toBe(
        'store_invalid_input',
      );
    });

    it('a corrupt row among the new events is a StoreError (corrupt) naming the sequence', async () => {
      const store = await open();
      const e = eventsOf('r1');
      await store.appendEvents('r1', [e.start(0), e.modelStart(1), e.modelEnd(2)]);
      await target.corruptEvent(store, 'r1', 2, '{"not": "an event"}');
      expect(await store.readEvents?.('r1', { after: 0, limit: 1 })).toEqual(json([e.modelStart(1)]));
      const error = await rejection(store.readEvents?.('r1', { after: 0 }) as Promise<unknown>);
      expect(error.code).toBe('store_corrupt');
      expect(error.message).toContain('sequence 2');
    });
  });
}
