import type { RunEvent, Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../src/index';
import { rejection } from './conformance-helpers';
import { eventsOf } from './events';

/** Bad input to a store is a `StoreError` (`store_invalid_input`) naming the problem, and nothing is written. */
export function badInputConformance(open: (options?: OpenStoreOptions) => Promise<Store>): void {
  describe('bad input is a StoreError (invalid_input) naming the problem, and writes nothing', () => {
    const e = eventsOf('r1');
    const cyclic: Record<string, unknown> = { ...e.toolStart(1) };
    cyclic.arguments = cyclic;
    const cases: [string, string, unknown, string][] = [
      ['an empty run id', '', [], 'runId must be a non-empty string'],
      ['a NUL in the run id', 'r\u00001', [], 'without NUL'],
      ['events that are not an array', 'r1', { 0: e.start(0) }, 'events must be an array'],
      ['an event that is not an object', 'r1', [e.start(0), 'text'], 'event 1 must be an object'],
      ['an event of another run', 'r1', [eventsOf('r2').start(0)], 'belongs to run "r2"'],
      ['a negative sequence', 'r1', [{ ...e.start(0), sequence: -1 }], 'needs an integer sequence'],
      ['a fractional sequence', 'r1', [{ ...e.start(0), sequence: 1.5 }], 'needs an integer sequence'],
      ['a sequence as a string', 'r1', [{ ...e.start(0), sequence: '1' }], 'needs an integer sequence'],
      ['a sequence past 2^31-1', 'r1', [{ ...e.start(0), sequence: 2 ** 31 }], 'needs an integer sequence'],
      ['a batch out of order', 'r1', [e.start(0), e.modelStart(2), e.modelEnd(1)], 'sequence 1 after 2'],
      ['a repeated sequence in a batch', 'r1', [e.start(0), e.start(0)], 'sequence 0 after 0'],
      ['a missing type', 'r1', [{ ...e.start(0), type: undefined }], 'needs a type'],
      ['a bad timestamp', 'r1', [{ ...e.start(0), timestamp: 'yesterday' }], 'timestamp must be an ISO 8601 time'],
      ['a cyclic event', 'r1', [e.start(0), cyclic], 'is not JSON'],
      ['a BigInt', 'r1', [{ ...e.start(0), prompt: 10n }], 'is not JSON'],
      ['a run_start without model', 'r1', [{ ...e.start(0), model: undefined }], 'needs a string model'],
      [
        'a run_start with a numeric sessionId',
        'r1',
        [{ ...e.start(0), sessionId: 7 }],
        'sessionId that is not a string',
      ],
      ['a run_end without status', 'r1', [e.start(0), { ...e.end(1), status: '' }], 'needs a non-empty string status'],
    ];
    for (const [what, runId, events, message] of cases) {
      it(what, async () => {
        const store = await open();
        const error = await rejection(store.appendEvents(runId, events as RunEvent[]));
        expect(error.code).toBe('store_invalid_input');
        expect(error.message).toContain(message);
        expect(await store.listRuns()).toEqual([]);
      });
    }

    it('an event over maxEventChars', async () => {
      const store = await open({ maxEventChars: 1000 });
      const error = await rejection(store.appendEvents('r1', [e.start(0), e.toolEnd(1, 1, 'y'.repeat(1000))]));
      expect(error.message).toMatch(/event 1 \(sequence 1\) is \d+ characters of JSON, over the limit of 1000/);
      expect(await store.readRun('r1')).toBeUndefined();
    });

    it('queries: a limit outside 1..1000, a before that is no time, an empty status', async () => {
      const store = await open();
      for (const [query, message] of [
        [{ limit: 0 }, 'limit must be an integer from 1 to 1000'],
        [{ limit: 1001 }, 'limit must be an integer from 1 to 1000'],
        [{ limit: 2.5 }, 'limit must be an integer from 1 to 1000'],
        [{ before: 'last week' }, 'before must be an ISO 8601 time'],
        [{ status: '' }, 'status must be a non-empty string'],
      ] as const) {
        const error = await rejection(store.listRuns(query as never));
        expect(error.message).toContain(message);
      }
      expect((await rejection(store.listSessions({ limit: -1 }))).message).toContain('limit must be');
      expect((await rejection(store.readRun(''))).message).toContain('readRun: runId');
    });
  });
}
