import type { RunEvent, Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { type OpenStoreOptions, StoreError } from '../src/index';
import { eventsOf } from './events';

const HOUR = 3_600_000;
const BASE = Date.UTC(2025, 1, 1, 10, 0, 0);

/** A run started at `at` ms: its run_start (with `start` fields), tool calls `tools`, then a run_end. */
async function run(
  store: Store,
  runId: string,
  at: number,
  start: Record<string, unknown>,
  end?: {
    status?: string;
    durationMs?: number;
    usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
  },
  tools: { name: string; durationMs: number; isError?: boolean }[] = [],
) {
  const e = eventsOf(runId, at);
  const events: RunEvent[] = [{ ...e.start(0), ...start } as RunEvent];
  tools.forEach((tool, index) => {
    events.push({
      ...e.toolEnd(index + 1),
      name: tool.name,
      durationMs: tool.durationMs,
      isError: tool.isError === true,
    } as RunEvent);
  });
  if (end) {
    events.push({
      ...e.end(tools.length + 1, end.status ?? 'completed'),
      ...(end.durationMs !== undefined && { durationMs: end.durationMs }),
      ...(end.usage !== undefined && { usage: end.usage }),
    } as RunEvent);
  }
  await store.appendEvents(runId, events);
}

/** The console's queries (SPEC third release, issue 32): listRuns' title, filters and search; runsOverview. */
export function consoleConformance(open: (options?: OpenStoreOptions) => Promise<Store>): void {
  describe('listRuns for the console: title, model, since and search', () => {
    it("titles a run by its prompt's first line (blank lines skipped, trailing blanks cut, 200 characters)", async () => {
      const store = await open();
      await run(store, 'p1', BASE, { prompt: '\n\n  Fix the login bug  \r\nThen add tests' });
      await run(store, 'p2', BASE + 1000, { prompt: `${'x'.repeat(250)}\nmore` });
      await run(store, 'p3', BASE + 2000, {
        prompt: undefined,
        messages: [
          { role: 'user', content: 'first turn' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'second turn\nwith detail' },
        ],
      });
      await run(store, 'p4', BASE + 3000, { prompt: undefined, messages: [{ role: 'assistant', content: 'hi' }] });
      await run(store, 'p5', BASE + 4000, { prompt: '   ' });
      // A resumed segment's run_start does not rename the run.
      await store.appendEvents('p1', [
        { ...eventsOf('p1', BASE).start(9, { resumed: true }), prompt: 'other' } as RunEvent,
      ]);
      const titles = Object.fromEntries((await store.listRuns()).map((row) => [row.runId, row.title]));
      expect(titles).toEqual({
        p1: 'Fix the login bug',
        p2: 'x'.repeat(200),
        p3: 'second turn',
        p4: undefined,
        p5: undefined,
      });
      expect(await store.listRuns({ search: 'zzz' })).toEqual([]);
    });

    it('filters by model, creation time and a search in titles (ASCII case ignored), with the other filters', async () => {
      const store = await open();
      await run(store, 'a', BASE, { prompt: 'Deploy the API', model: 'openai:gpt-4o' }, {});
      await run(store, 'b', BASE + HOUR, { prompt: 'deploy docs\nDEPLOY everything', model: 'anthropic:claude' }, {});
      await run(store, 'c', BASE + 2 * HOUR, { prompt: 'Write tests\nthen deploy', model: 'openai:gpt-4o' });
      await run(store, 'd', BASE + 3 * HOUR, { prompt: 'Redeploy ünïcode', model: 'openai:gpt-4o' }, {});
      const ids = (rows: { runId: string }[]) => rows.map((row) => row.runId);
      expect(ids(await store.listRuns({ model: 'openai:gpt-4o' }))).toEqual(['d', 'c', 'a']);
      expect(ids(await store.listRuns({ since: new Date(BASE + HOUR).toISOString() }))).toEqual(['d', 'c', 'b']);
      // Only the first line is searched: c says "deploy" on its second line only.
      expect(ids(await store.listRuns({ search: 'DePlOy' }))).toEqual(['d', 'b', 'a']);
      expect(ids(await store.listRuns({ search: 'deploy', model: 'openai:gpt-4o', status: 'completed' }))).toEqual([
        'd',
        'a',
      ]);
      const before = (await store.readRun('d'))?.updatedAt;
      expect(ids(await store.listRuns({ search: 'deploy', limit: 1, before }))).toEqual(['b']);
      expect(ids(await store.listRuns({ search: 'ünïcode' }))).toEqual(['d']);
      expect(ids(await store.listRuns({ search: '%' }))).toEqual([]);
    });

    it('refuses a search that is empty or longer than 200 characters, a since that is not a time', async () => {
      const store = await open();
      for (const query of [{ search: '' }, { search: 'x'.repeat(201) }, { since: 'yesterday' }, { model: '' }]) {
        const error = await store.listRuns(query as never).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toMatchObject({ code: 'store_invalid_input' });
      }
    });
  });

  describe('runsOverview', () => {
    it('counts runs per hour by status, duration percentiles, usage per day and model, the slowest tools', async () => {
      const store = await open();
      const usage = (inputTokens: number, outputTokens: number, costUsd?: number) => ({
        inputTokens,
        outputTokens,
        ...(costUsd !== undefined && { costUsd }),
      });
      await run(store, 'old', BASE - 2 * HOUR, { model: 'm1' }, { durationMs: 99_999, usage: usage(1000, 1000, 1) }, [
        { name: 'ancient', durationMs: 90_000 },
      ]);
      await run(store, 'r1', BASE, { model: 'm1' }, { durationMs: 100, usage: usage(10, 5, 0.25) }, [
        { name: 'read_file', durationMs: 4 },
        { name: 'shell', durationMs: 300, isError: true },
      ]);
      await run(store, 'r2', BASE + 60_000, { model: 'm1' }, { durationMs: 200, usage: usage(20, 10, 0.5) }, [
        { name: 'shell', durationMs: 100 },
      ]);
      await run(
        store,
        'r3',
        BASE + 120_000,
        { model: 'm2' },
        { status: 'model_error', durationMs: 300, usage: usage(1, 1) },
      );
      await run(store, 'r4', BASE + HOUR, { model: 'm2' }, { durationMs: 400, usage: usage(3, 4, 0.125) });
      await run(store, 'r5', BASE + HOUR + 1, { model: 'm1' }); // still running: no duration, no usage
      await run(store, 'r6', BASE + 25 * HOUR, { model: 'm1' }, { durationMs: 1000, usage: usage(7, 7, 0.25) }, [
        { name: 'read_file', durationMs: 6 },
      ]);
      // A sub-agent's run: its tools count, its run and usage do not (they are in its parent's).
      await run(
        store,
        'child',
        BASE + 61_000,
        { model: 'm1', parent: { runId: 'r2', callId: 'c1' } },
        {
          durationMs: 50,
          usage: usage(500, 500, 2),
        },
        [{ name: 'web_fetch', durationMs: 1000 }],
      );
      const overview = await store.runsOverview?.({ since: new Date(BASE).toISOString() });
      expect(overview).toEqual({
        runsPerHour: [
          { hour: '2025-02-01T10:00:00.000Z', status: 'completed', runs: 2 },
          { hour: '2025-02-01T10:00:00.000Z', status: 'model_error', runs: 1 },
          { hour: '2025-02-01T11:00:00.000Z', status: 'completed', runs: 1 },
          { hour: '2025-02-01T11:00:00.000Z', status: 'running', runs: 1 },
          { hour: '2025-02-02T11:00:00.000Z', status: 'completed', runs: 1 },
        ],
        duration: { runs: 5, p50Ms: 300, p95Ms: 1000 },
        usagePerDay: [
          { day: '2025-02-01', model: 'm1', runs: 3, inputTokens: 30, outputTokens: 15, costUsd: 0.75 },
          { day: '2025-02-01', model: 'm2', runs: 2, inputTokens: 4, outputTokens: 5, costUsd: 0.125 },
          { day: '2025-02-02', model: 'm1', runs: 1, inputTokens: 7, outputTokens: 7, costUsd: 0.25 },
        ],
        slowestTools: [
          { name: 'web_fetch', calls: 1, errors: 0, meanMs: 1000, maxMs: 1000 },
          { name: 'shell', calls: 2, errors: 1, meanMs: 200, maxMs: 300 },
          { name: 'read_file', calls: 2, errors: 0, meanMs: 5, maxMs: 6 },
        ],
      });
      const firstHour = await store.runsOverview?.({
        since: new Date(BASE).toISOString(),
        until: new Date(BASE + HOUR).toISOString(),
      });
      expect(firstHour?.duration).toEqual({ runs: 3, p50Ms: 200, p95Ms: 300 });
      expect(firstHour?.runsPerHour).toHaveLength(2);
      const empty = await store.runsOverview?.({ since: new Date(BASE + 100 * HOUR).toISOString() });
      expect(empty).toEqual({ runsPerHour: [], duration: { runs: 0 }, usagePerDay: [], slowestTools: [] });
    });

    it('keeps the ten slowest tools, ties by name', async () => {
      const store = await open();
      const tools = Array.from({ length: 12 }, (_, index) => ({
        name: `t${String(index).padStart(2, '0')}`,
        durationMs: index < 3 ? 50 : index,
      }));
      await run(store, 'r1', BASE, {}, {}, tools);
      const overview = await store.runsOverview?.({ since: new Date(BASE).toISOString() });
      expect(overview?.slowestTools.map((tool) => tool.name)).toEqual([
        't00',
        't01',
        't02',
        't11',
        't10',
        't09',
        't08',
        't07',
        't06',
        't05',
      ]);
    });

    it("aggregates one tenant's runs only; the default tenant also owns runs that name none", async () => {
      const store = await open();
      const usage = { inputTokens: 10, outputTokens: 10, costUsd: 1 };
      await run(store, 'a1', BASE, { model: 'm1', tenant: 'acme' }, { durationMs: 100, usage }, [
        { name: 'acme_tool', durationMs: 5 },
      ]);
      await run(store, 'a2', BASE + 1, { model: 'm1', tenant: 'acme' }, { durationMs: 300, usage });
      await run(store, 'g1', BASE + 2, { model: 'm2', tenant: 'globex' }, { durationMs: 900, usage }, [
        { name: 'globex_tool', durationMs: 7 },
      ]);
      await run(store, 'n1', BASE + 3, { model: 'm3' }, { durationMs: 50, usage });
      await run(store, 'd1', BASE + 4, { model: 'm3', tenant: 'default' }, { durationMs: 60, usage });
      const since = new Date(BASE).toISOString();
      const acme = await store.runsOverview?.({ since, tenant: 'acme' });
      expect(acme).toEqual({
        runsPerHour: [{ hour: '2025-02-01T10:00:00.000Z', status: 'completed', runs: 2 }],
        duration: { runs: 2, p50Ms: 100, p95Ms: 300 },
        usagePerDay: [{ day: '2025-02-01', model: 'm1', runs: 2, inputTokens: 20, outputTokens: 20, costUsd: 2 }],
        slowestTools: [{ name: 'acme_tool', calls: 1, errors: 0, meanMs: 5, maxMs: 5 }],
      });
      const other = await store.runsOverview?.({ since, tenant: 'default' });
      expect(other?.usagePerDay).toEqual([
        { day: '2025-02-01', model: 'm3', runs: 2, inputTokens: 20, outputTokens: 20, costUsd: 2 },
      ]);
      expect(other?.slowestTools).toEqual([]);
      expect((await store.runsOverview?.({ since, tenant: 'initech' }))?.duration).toEqual({ runs: 0 });
      expect((await store.runsOverview?.({ since }))?.duration.runs).toBe(5);
      const error = await store.runsOverview?.({ since, tenant: '' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'store_invalid_input' });
    });

    it('refuses a window that is not two times in order', async () => {
      const store = await open();
      const at = new Date(BASE).toISOString();
      for (const query of [{ since: 'now' }, { since: at, until: at }, { since: at, until: 'later' }, null]) {
        const error = await store.runsOverview?.(query as never).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toMatchObject({ code: 'store_invalid_input' });
      }
    });
  });
}
