// Runs whose server died are resumed by the servers still up: each orphan by exactly one of them.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '@bridle/store';
import { fakeOpenAIServer } from '@bridle/testing';
import { afterEach, expect, it } from 'vitest';
import { serverBinArgs } from './server-processes';
import { dropSchema, newSchemaStoreUrl, serviceSuite } from './services';

const suite = await serviceSuite('server recovery (Postgres)');
const root = fileURLToPath(new URL('..', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

/** The built `bridle-server` as a real process; `url` resolves once it listens. */
function startServer(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, serverBinArgs(), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', OPENAI_API_KEY: 'sk-test', BRIDLE_MODEL: 'openai:fake', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const url = new Promise<string>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      const match = /bridle-server listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) resolve(match[1] as string);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`bridle-server exited early:\n${output}`)));
  });
  return { child, url, exited, output: () => output };
}

suite('bridle-server recovery', () => {
  it('two servers and a SIGKILLed third on one Postgres database: each orphan is resumed once, by one of them', async () => {
    const { schema, url: store } = newSchemaStoreUrl();
    cleanups.push(() => dropSchema(schema));
    const hanging = await fakeOpenAIServer(() => ({ type: 'hang' }));
    const answering = await fakeOpenAIServer(() => ({ content: 'recovered' }));
    cleanups.push(() => hanging.close());
    cleanups.push(() => answering.close());
    const common = { BRIDLE_STORE: store, BRIDLE_LEASE_MS: '6000', BRIDLE_RECOVER_INTERVAL_MS: '500' };

    // The third server starts three runs, each waiting on its model, and dies.
    const victim = startServer({ ...common, OPENAI_BASE_URL: hanging.baseURL, BRIDLE_RECOVER: '0' });
    const victimUrl = await victim.url;
    for (const prompt of ['one', 'two', 'three']) {
      void fetch(`${victimUrl}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      }).catch(() => {});
    }
    await expect.poll(() => hanging.requests.length, { timeout: 30_000 }).toBe(3);
    victim.child.kill('SIGKILL');
    await victim.exited;

    const opened = await openStore(store);
    cleanups.push(() => opened.close());
    const orphans = await opened.listRuns({ status: 'running' });
    expect(orphans).toHaveLength(3);
    for (const run of orphans) expect(run.owner).toMatch(/:/);

    // Two servers that recover (on by default); their lease look finds the three once the victim's expire.
    const servers = [
      startServer({ ...common, OPENAI_BASE_URL: answering.baseURL }),
      startServer({ ...common, OPENAI_BASE_URL: answering.baseURL }),
    ];
    await Promise.all(servers.map((server) => server.url));
    await expect
      .poll(async () => (await opened.listRuns({ status: 'completed' })).length, { timeout: 60_000, interval: 500 })
      .toBe(3);

    for (const run of orphans) {
      const events = (await opened.readRun(run.runId))?.events ?? [];
      expect(events.filter((event) => event.type === 'run_start')).toHaveLength(2);
      expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
    }
    const resumed = servers.flatMap((server) =>
      [...server.output().matchAll(/"runId":"([^"]+)"[^\n]*resuming a run whose owner died/g)].map((match) => match[1]),
    );
    expect(resumed.sort()).toEqual(orphans.map((run) => run.runId).sort());
    expect(answering.requests).toHaveLength(3);
    const [after] = await opened.listRuns({ status: 'completed', limit: 1 });
    expect(after?.owner).toBeUndefined();
  }, 180_000);
});
