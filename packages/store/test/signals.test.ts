// Run signals (steering and cancel) through each store: within one store object, and between two stores
// opened on one database (as two processes open it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunSignal, Store } from '@bridle/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, StoreError } from '../src/index';
import { dropSchemas, openInNewSchema, POSTGRES_URL, postgresProblem, reopenSchema } from './postgres-target';

const problem = await postgresProblem();
if (problem !== undefined && process.env.CI !== 'true')
  console.warn(`SKIPPED @bridle/store Postgres signal tests: no Postgres at ${POSTGRES_URL} (${problem})`);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-store-signals-'));

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true });
  if (problem === undefined) await dropSchemas();
});

/** Collects what a listener hears; `next(n)` resolves once it heard n signals. */
function collector() {
  const heard: RunSignal[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    heard,
    listener: (signal: RunSignal) => {
      heard.push(signal);
      for (const waiter of waiters) if (heard.length >= waiter.count) waiter.resolve();
    },
    next: (count: number) =>
      new Promise<void>((resolve) => {
        if (heard.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
  };
}

type Pair = { sender: Store; listener: Store; close(): Promise<void> };

function signalCases(kind: string, open: () => Promise<Pair>) {
  describe(`${kind} run signals`, () => {
    it('a listener hears the signals sent for its run, in order, and not those of other runs', async () => {
      const { sender, listener, close } = await open();
      const mine = collector();
      const other = collector();
      const stop = await listener.listenRunSignals?.('run-a', mine.listener);
      await listener.listenRunSignals?.('run-b', other.listener);
      await sender.sendRunSignal?.('run-a', { type: 'input', id: 's1', content: 'first', by: 'ada' });
      await sender.sendRunSignal?.('run-a', { type: 'cancel', id: 's2' });
      await mine.next(2);
      expect(mine.heard).toEqual([
        { type: 'input', id: 's1', content: 'first', by: 'ada' },
        { type: 'cancel', id: 's2' },
      ]);
      expect(other.heard).toEqual([]);
      stop?.();
      await sender.sendRunSignal?.('run-a', { type: 'input', id: 's3', content: 'after stop' });
      await sender.sendRunSignal?.('run-b', { type: 'input', id: 's4', content: 'for b' });
      await other.next(1);
      // Stopped: run-a's listener heard nothing more (run-b's, sent after, arrived).
      expect(mine.heard).toHaveLength(2);
      await close();
    });

    it('listening again after many stops: each signal is heard once', async () => {
      const { sender, listener, close } = await open();
      for (let round = 0; round < 4; round++) {
        const stop = await listener.listenRunSignals?.('run-r', () => {});
        stop?.();
        // The stop finishes in the background (a listen right after it would keep the connection instead).
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const heard = collector();
      await listener.listenRunSignals?.('run-r', heard.listener);
      await sender.sendRunSignal?.('run-r', { type: 'input', id: 'one', content: '1' });
      await sender.sendRunSignal?.('run-r', { type: 'input', id: 'two', content: '2' });
      await heard.next(2);
      expect(heard.heard.map((signal) => signal.id)).toEqual(['one', 'two']);
      await close();
    });

    it('a long input arrives whole', async () => {
      const { sender, listener, close } = await open();
      const heard = collector();
      await listener.listenRunSignals?.('run-long', heard.listener);
      const content = `${'ü'.repeat(9000)}€${'x'.repeat(20_000)}`;
      await sender.sendRunSignal?.('run-long', { type: 'input', id: 'long', content });
      await heard.next(1);
      expect(heard.heard[0]).toEqual({ type: 'input', id: 'long', content });
      await close();
    });

    it('refuses a malformed signal with StoreError invalid_input', async () => {
      const { sender, close } = await open();
      const error = await sender
        .sendRunSignal?.('run-x', { type: 'shout' } as never)
        .catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error) && error.reason).toBe('invalid_input');
      await close();
    });
  });
}

signalCases('memory', async () => {
  const store = await openStore('memory:');
  return { sender: store, listener: store, close: () => store.close() };
});

let files = 0;
signalCases('sqlite (two stores on one file)', async () => {
  const url = `sqlite:${path.join(root, `signals-${++files}.db`)}`;
  const sender = await openStore(url);
  const listener = await openStore(url);
  return { sender, listener, close: async () => Promise.all([sender.close(), listener.close()]).then(() => {}) };
});

if (problem === undefined || process.env.CI === 'true') {
  signalCases('postgres (two pools on one schema)', async () => {
    const sender = await openInNewSchema();
    const listener = await reopenSchema(sender);
    return { sender, listener, close: async () => Promise.all([sender.close(), listener.close()]).then(() => {}) };
  });
}
