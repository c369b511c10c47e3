// The zombie test for servers: a server paused (SIGSTOP) past its run's lease, whose run another server
// recovered and finished, is woken (SIGCONT): nothing it does reaches the journal, and no tool runs twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { steerRun } from '@bridle/core';
import { openStore } from '@bridle/store';
import { type Child, startChild } from '@bridle/testing';
import { afterEach, expect, it } from 'vitest';
import { dropSchema, newSchemaStoreUrl, serviceSuite } from './services';

const suite = await serviceSuite('zombie server test (Postgres)');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

/** A server on `store` whose runs hold leases of `leaseMs`. */
function startServer(store: string, sideEffects: string, leaseMs: number): Child {
  const child = startChild(join('test', 'fixtures', 'zombie-server.ts'), [store, sideEffects, String(leaseMs)], {
    cwd: join(import.meta.dirname, '..'),
    nodeArgs: ['--conditions=@bridle/source', '--import', 'tsx'],
  });
  cleanups.push(async () => {
    child.process.kill('SIGCONT');
    if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await child.exited;
  });
  return child;
}

async function urlOf(child: Child): Promise<string> {
  return (await child.waitFor((line) => line.startsWith('listening '))).slice('listening '.length);
}

suite('@bridle/server: a server that lost its run', () => {
  it('paused past its lease while another server recovered and finished the run (with input sent meanwhile), then woken: it is fenced, the tool ran once', async () => {
    const { schema, url: storeUrl } = newSchemaStoreUrl();
    cleanups.push(() => dropSchema(schema));
    const sideEffects = join(tmpdir(), `bridle-zombie-${process.pid}-${Date.now()}.txt`);
    writeFileSync(sideEffects, '');
    // The zombie's lease is short, so it passes while the zombie is stopped; the rescuer's is long, so a busy
    // machine that delays its renewals cannot make the rescuer lose the run in turn (a third segment).
    const zombie = startServer(storeUrl, sideEffects, 1000);
    const zombieUrl = await urlOf(zombie);
    const store = await openStore(storeUrl);
    cleanups.push(() => store.close());

    // The run starts in the zombie; it is stopped while its model is answering the first step.
    const paused = zombie.waitFor((line) => line === 'start 1').then(() => zombie.process.kill('SIGSTOP'));
    const chat = fetch(`${zombieUrl}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'charge me' }),
    }).then(async (response) => ({ status: response.status, body: await response.text() }));
    await paused;
    const [running] = await store.listRuns({ status: 'running' });
    const runId = running?.runId as string;
    expect(running?.owner).toMatch(/:/);

    // Input sent while nobody runs it is kept in its journal (nobody would hear a signal), for its resume.
    await expect
      .poll(async () => Date.parse((await store.listRuns({ status: 'running' }))[0]?.leaseUntil ?? '0') < Date.now(), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    expect(await steerRun({ store, runId, content: 'use the saved card', by: 'ops' })).toEqual({
      runId,
      delivery: 'journal',
    });

    // A second server finds the lease expired, claims the run and finishes it.
    const rescuer = startServer(storeUrl, sideEffects, 15_000);
    await urlOf(rescuer);
    await expect
      .poll(async () => (await store.readRun(runId))?.status, { timeout: 60_000, interval: 200 })
      .toBe('completed');
    const finished = await store.readRun(runId);
    expect(finished?.events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });

    zombie.process.kill('SIGCONT');
    // Woken, the zombie finishes its model call and tries to journal it: fenced, it stops there.
    const answered = await chat;
    expect(answered.status).toBe(409);
    expect(JSON.parse(answered.body).error).toMatchObject({
      code: 'fenced',
      message: expect.stringContaining(`Run ${runId} stopped here: another process owns it now`),
    });
    // Let whatever else it would do happen (a late write would show below).
    await new Promise((resolve) => setTimeout(resolve, 1500));

    expect(await store.readRun(runId)).toEqual(finished);
    const events = finished?.events ?? [];
    expect(events.filter((event) => event.type === 'run_start')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool_end')).toHaveLength(1);
    expect(readFileSync(sideEffects, 'utf8')).toBe(`${runId} 250\n`);
    expect(rescuer.lines).toContain(`tool ${runId}`);
    expect(rescuer.lines).toContain('told use the saved card');
    expect(events.find((event) => event.type === 'input')).toMatchObject({ content: 'use the saved card', by: 'ops' });
    expect(zombie.lines).not.toContain(`tool ${runId}`);
    expect(zombie.lines).not.toContain('start 2');
  }, 180_000);
});
