import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index';
import { MemoryStore } from '../src/memory-store';
import { eventsOf } from './events';
import { storeConformance } from './store-conformance';

storeConformance('memory:', {
  open: (options) => openStore('memory:', options),
  corruptEvent: async (store, runId, sequence, text) => (store as MemoryStore).corruptForTest(runId, sequence, text),
  corruptSession: async (store, id, text) => (store as MemoryStore).corruptSessionForTest(id, text),
});

describe('memory:', () => {
  it('each openStore("memory:") is a new, empty store', async () => {
    const first = await openStore('memory:');
    await first.appendEvents('r1', [eventsOf('r1').start(0)]);
    const second = await openStore('memory:');
    expect(await second.readRun('r1')).toBeUndefined();
    expect(first).toBeInstanceOf(MemoryStore);
  });
});
