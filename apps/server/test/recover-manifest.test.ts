// Recovery continues an orphan with the tools its manifest lists, not with whatever its session says now.
import type { RunLease, Store } from '@bridle/protocol';
import { assistantSkill } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { afterEach, describe, expect, it } from 'vitest';
import { tempStoreUrl } from './durable-helpers';
import { echoModel, gatedModel, postJson, startTestServer } from './helpers';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `store` as a process stopped by SIGSTOP sees it: its lease renewals never reach the store, so it expires. */
function frozenRenewals(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'renewLease') return async (lease: RunLease) => lease;
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A chat with `skill` whose server stops renewing its lease while the model is asked: an orphan. */
async function orphanOf(store: Store, skill: string) {
  const gated = gatedModel();
  const stopped = await startTestServer({
    model: gated.model,
    store: frozenRenewals(store),
    leaseMs: 200,
    recover: false,
  });
  void postJson(`${stopped.url}/api/chat`, { prompt: 'hello', skill }).catch(() => {});
  await gated.started;
  const [run] = await store.listRuns({ status: 'running' });
  const start = (await store.readRun(run?.runId as string))?.events[0];
  return { runId: run?.runId as string, start, stop: () => stopped.shutdown() };
}

function logLines() {
  const lines: string[] = [];
  return { lines, logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } } };
}

describe('recovery rebuilds an orphan from its manifest', () => {
  it('a run of the analyst skill, whose session never recorded it, resumes with the analyst tools', async () => {
    const store = await openStore(await tempStoreUrl());
    closers.push(() => store.close());
    const orphan = await orphanOf(store, 'analyst');
    closers.push(orphan.stop);
    expect(orphan.start).toMatchObject({ type: 'run_start', manifest: { skills: ['analyst'] } });
    // The second server's default skill is the assistant's (other tools): the session says nothing yet.
    const log = logLines();
    const rescuer = await startTestServer({
      model: echoModel(),
      store,
      recover: true,
      recoverIntervalMs: 100,
      logger: log.logger,
    });
    closers.push(() => rescuer.shutdown());
    await expect
      .poll(async () => (await store.readRun(orphan.runId))?.status, { timeout: 20_000, interval: 100 })
      .toBe('completed');
    const events = (await store.readRun(orphan.runId))?.events ?? [];
    expect(events.filter((event) => event.type === 'run_start')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
    expect(log.lines.join('')).not.toContain('recovering runs');
  });

  it("a server without the run's skill leaves it as it is, resumable, and logs why", async () => {
    const store = await openStore(await tempStoreUrl());
    closers.push(() => store.close());
    const orphan = await orphanOf(store, 'analyst');
    closers.push(orphan.stop);
    const log = logLines();
    const other = await startTestServer({
      model: echoModel(),
      store,
      skills: [assistantSkill()],
      recover: true,
      recoverIntervalMs: 100,
      leaseMs: 200,
      logger: log.logger,
    });
    closers.push(() => other.shutdown());
    await expect
      .poll(() => log.lines.join(''), { timeout: 20_000, interval: 100 })
      .toContain(
        `not resuming a run whose owner died: run ${orphan.runId} ran with the skill \\"analyst\\", which this server does not offer (it offers \\"assistant\\")`,
      );
    const run = await store.readRun(orphan.runId);
    expect(run?.status).toBe('running');
    expect(run?.events.filter((event) => event.type === 'run_start')).toHaveLength(1);
    await other.shutdown();
    // Its claim lapses: a server that has the skill takes it then.
    const rescuer = await startTestServer({ model: echoModel(), store, recover: true, recoverIntervalMs: 100 });
    closers.push(() => rescuer.shutdown());
    await expect
      .poll(async () => (await store.readRun(orphan.runId))?.status, { timeout: 20_000, interval: 100 })
      .toBe('completed');
  });
});
