import type { RunLease, Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../src/index';
import { json, rejection } from './conformance-helpers';
import { eventsOf, timeAt } from './events';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function take(store: Store, runId: string, owner: string, leaseMs = 60_000, force = false): Promise<RunLease> {
  const result = await store.acquireLease?.(runId, { owner, leaseMs, force });
  if (!result?.acquired) throw new Error(`expected to take the lease of ${runId}, got ${JSON.stringify(result)}`);
  return result.lease;
}

/** Ownership: leases, fencing tokens and orphans (part of the Store conformance suite). */
export function leaseConformance(open: (options?: OpenStoreOptions) => Promise<Store>): void {
  describe('ownership: leases and fencing', () => {
    it('a new run’s first lease has token 1; the record it makes is no run until its first append', async () => {
      const store = await open();
      const before = Date.now();
      const lease = await take(store, 'r1', 'alpha', 30_000);
      expect(lease).toMatchObject({ runId: 'r1', owner: 'alpha', token: 1 });
      const until = Date.parse(lease.leaseUntil);
      expect(until).toBeGreaterThanOrEqual(before + 30_000 - 5_000);
      expect(until).toBeLessThanOrEqual(Date.now() + 30_000 + 5_000);
      expect(await store.readRun('r1')).toBeUndefined();
      expect(await store.listRuns()).toEqual([]);
      const e = eventsOf('r1');
      await store.appendEvents('r1', [e.start(0), e.modelStart(1)], { fencingToken: 1 });
      const [summary] = await store.listRuns();
      expect(summary).toMatchObject({ runId: 'r1', status: 'running', createdAt: timeAt(0), updatedAt: timeAt(1) });
      expect(summary?.owner).toBe('alpha');
      expect(summary?.leaseUntil).toBe(lease.leaseUntil);
      expect((await store.readRun('r1'))?.events).toEqual(json([e.start(0), e.modelStart(1)]));
    });

    it('another owner cannot take an unexpired lease (it learns who holds it); force takes it', async () => {
      const store = await open();
      const first = await take(store, 'r1', 'alpha');
      expect(await store.acquireLease?.('r1', { owner: 'beta', leaseMs: 1000 })).toEqual({
        acquired: false,
        owner: 'alpha',
        leaseUntil: first.leaseUntil,
      });
      const forced = await take(store, 'r1', 'beta', 1000, true);
      expect(forced.token).toBe(2);
    });

    it('refuses an append with a stale token (store_fenced), writing nothing of the batch', async () => {
      const store = await open();
      const e = eventsOf('r1');
      const first = await take(store, 'r1', 'alpha', 50);
      await store.appendEvents('r1', [e.start(0)], { fencingToken: first.token });
      await sleep(80);
      const second = await take(store, 'r1', 'beta');
      expect(second.token).toBe(first.token + 1);
      const error = await rejection(store.appendEvents('r1', [e.modelStart(1), e.modelEnd(2)], { fencingToken: 1 }));
      expect(error.code).toBe('store_fenced');
      expect(error.message).toMatch(/fencing token 1 is stale.*token 2/);
      await store.appendEvents('r1', [e.modelStart(1)], { fencingToken: second.token });
      expect((await store.readRun('r1'))?.events).toEqual(json([e.start(0), e.modelStart(1)]));
      // Stale again after the new owner appended (the store's row moved on in between).
      expect((await rejection(store.appendEvents('r1', [e.modelEnd(2)], { fencingToken: 1 }))).code).toBe(
        'store_fenced',
      );
      // An append without a token is not fenced.
      await store.appendEvents('r1', [e.modelEnd(2)]);
      expect((await store.readRun('r1'))?.events).toHaveLength(3);
    });

    it('renewal extends a lease; a renewal after the lease was taken is store_fenced', async () => {
      const store = await open();
      const lease = await take(store, 'r1', 'alpha', 50);
      await store.appendEvents('r1', [eventsOf('r1').start(0)], { fencingToken: lease.token });
      const renewed = await store.renewLease?.(lease, 60_000);
      expect(renewed).toMatchObject({ runId: 'r1', owner: 'alpha', token: 1 });
      expect(Date.parse(renewed?.leaseUntil ?? '')).toBeGreaterThan(Date.parse(lease.leaseUntil));
      await sleep(80);
      // Still held (renewed): nobody else takes it.
      expect((await store.acquireLease?.('r1', { owner: 'beta', leaseMs: 1000 }))?.acquired).toBe(false);
      await take(store, 'r1', 'beta', 1000, true);
      expect((await rejection(store.renewLease?.(lease, 1000) as Promise<RunLease>)).code).toBe('store_fenced');
    });

    it('release leaves the run without owner; a stale release changes nothing', async () => {
      const store = await open();
      const e = eventsOf('r1');
      const lease = await take(store, 'r1', 'alpha');
      await store.appendEvents('r1', [e.start(0), e.end(1)], { fencingToken: lease.token });
      await store.releaseLease?.(lease);
      const [summary] = await store.listRuns();
      expect(summary?.owner).toBeUndefined();
      expect(summary?.leaseUntil).toBeUndefined();
      const next = await take(store, 'r1', 'beta');
      expect(next.token).toBe(2);
      await store.releaseLease?.(lease);
      expect((await store.listRuns())[0]?.owner).toBe('beta');
      await expect(store.renewLease?.(lease, 1000)).rejects.toMatchObject({ code: 'store_fenced' });
    });

    it('claims orphans: running runs whose lease expired, once each, with a new token', async () => {
      const store = await open();
      const lost = await take(store, 'lost', 'dead', 30);
      await store.appendEvents('lost', [eventsOf('lost').start(0)], { fencingToken: lost.token });
      const alive = await take(store, 'alive', 'living', 60_000);
      await store.appendEvents('alive', [eventsOf('alive').start(0)], { fencingToken: alive.token });
      await take(store, 'ended', 'dead', 30);
      await store.appendEvents('ended', [eventsOf('ended').start(0), eventsOf('ended').end(1)]);
      const released = await take(store, 'released', 'gone', 30);
      await store.appendEvents('released', [eventsOf('released').start(0)]);
      await store.releaseLease?.(released);
      await take(store, 'never-appended', 'dead', 30);
      await sleep(80);
      const claimed = await store.claimOrphans?.({ owner: 'rescuer', leaseMs: 60_000 });
      expect(claimed?.map((lease) => [lease.runId, lease.owner, lease.token])).toEqual([['lost', 'rescuer', 2]]);
      expect(await store.claimOrphans?.({ owner: 'another', leaseMs: 60_000 })).toEqual([]);
      expect(
        (await rejection(store.appendEvents('lost', [eventsOf('lost').modelStart(1)], { fencingToken: 1 }))).code,
      ).toBe('store_fenced');
    });

    it('two claimers at once never get the same orphan', async () => {
      const store = await open();
      for (let index = 0; index < 6; index++) {
        const runId = `o${index}`;
        const lease = await take(store, runId, 'dead', 20);
        await store.appendEvents(runId, [eventsOf(runId).start(0)], { fencingToken: lease.token });
      }
      await sleep(60);
      const [a, b] = await Promise.all([
        store.claimOrphans?.({ owner: 'a', leaseMs: 60_000, limit: 4 }),
        store.claimOrphans?.({ owner: 'b', leaseMs: 60_000, limit: 4 }),
      ]);
      const all = [...(a ?? []), ...(b ?? [])].map((lease) => lease.runId).sort();
      expect(all).toEqual(['o0', 'o1', 'o2', 'o3', 'o4', 'o5']);
    });

    it('bad lease arguments are StoreErrors (invalid_input)', async () => {
      const store = await open();
      expect((await rejection(store.acquireLease?.('r1', { owner: '', leaseMs: 10 }) as Promise<unknown>)).code).toBe(
        'store_invalid_input',
      );
      expect(
        (await rejection(store.acquireLease?.('r1', { owner: 'a', leaseMs: 0 }) as Promise<unknown>)).message,
      ).toMatch(/leaseMs/);
      expect(
        (await rejection(store.appendEvents('r1', [eventsOf('r1').start(0)], { fencingToken: 0 }))).message,
      ).toMatch(/fencing token/);
      expect(
        (await rejection(store.claimOrphans?.({ owner: 'a', leaseMs: 10, limit: 0 }) as Promise<unknown>)).code,
      ).toBe('store_invalid_input');
    });
  });
}
