// Steering and cancelling a run from a server process other than the one running it (one Postgres
// database: LISTEN/NOTIFY), and a run that a queue worker process runs (Redis pub/sub).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '@bridle/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteModel, noteTool } from './durable-helpers';
import { echoModel, gatedModel, json, postJson, readSseFrames, startTestServer } from './helpers';
import {
  dropPrefix,
  dropSchema,
  newPrefix,
  newSchemaStoreUrl,
  REDIS_URL,
  serviceSuite,
  startWorker,
  type WorkerProcess,
} from './services';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const suite = await serviceSuite('steering across processes');
const root = fileURLToPath(new URL('..', import.meta.url));

/** A server process (`test/fixtures/server-process.ts`) on `storeUrl`; resolves with its URL. */
function startServerProcess(args: string[]): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(
    process.execPath,
    ['--conditions=@bridle/source', '--import', 'tsx', 'test/fixtures/server-process.ts', ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      const found = /^listening (\S+)$/m.exec(output);
      if (found) resolve(found[1] as string);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', () => reject(new Error(`the server process exited early:\n${output}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Polls run `runId` on `url` until `ready` says yes. */
async function waitForRun(url: string, runId: string, ready: (run: { status: string }) => boolean) {
  for (;;) {
    const response = await fetch(`${url}/api/runs/${runId}`);
    if (response.status === 200) {
      const run = await json(response);
      if (ready(run)) return run;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

suite('two server processes on one Postgres store', { timeout: 60_000 }, () => {
  const { schema, url: storeUrl } = newSchemaStoreUrl();
  let other: { child: ChildProcess; url: Promise<string> };

  beforeAll(async () => {
    // The database is migrated before the other process opens it.
    await startTestServer({ store: storeUrl });
    other = startServerProcess([storeUrl]);
    await other.url;
  }, 60_000);

  afterAll(async () => {
    await stop(other.child);
    await dropSchema(schema);
  });

  it('input sent to the other process reaches the run at its next step boundary, acknowledged on its event stream', async () => {
    const gated = gatedModel();
    const running = await startTestServer({ model: gated.model, store: storeUrl });
    const chat = postJson(`${running.url}/api/chat`, { prompt: 'hello' });
    await gated.started;
    const runs = await json(await fetch(`${running.url}/api/runs?status=running`));
    const runId = runs.runs[0].runId as string;
    const events = fetch(`${running.url}/api/runs/${runId}/events`).then(readSseFrames);
    const elsewhere = await other.url;
    const answer = await postJson(`${elsewhere}/api/runs/${runId}/input`, { content: 'reply in French' });
    expect(answer).toMatchObject({ status: 202, body: { runId, delivery: 'signal' } });
    // The signal is in the running process once its store heard the NOTIFY; give it that, then let step 1 end.
    await new Promise((resolve) => setTimeout(resolve, 300));
    gated.release();
    const done = await chat;
    expect(done.body).toMatchObject({ status: 'completed', steps: 2 });
    expect(gated.model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'reply in French' });
    const frames = await events;
    expect(frames.map((frame) => frame.event)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'input',
      'model_start',
      'model_end',
      'run_end',
    ]);
    expect(frames[3]?.data).toMatchObject({ type: 'input', content: 'reply in French', by: 'api' });
  });

  it('cancel sent to the other process stops the run: aborted, and the journal says who cancelled', async () => {
    const gated = gatedModel();
    const running = await startTestServer({ model: gated.model, store: storeUrl });
    const chat = postJson(`${running.url}/api/chat`, { prompt: 'long job' });
    await gated.started;
    const runs = await json(await fetch(`${running.url}/api/runs?status=running`));
    const runId = runs.runs[0].runId as string;
    const answer = await postJson(`${await other.url}/api/runs/${runId}/cancel`, {});
    expect(answer).toMatchObject({ status: 202, body: { runId, delivery: 'signal' } });
    await gated.aborted;
    expect((await chat).body).toMatchObject({ status: 'aborted', error: 'The run was cancelled by api.' });
    const run = await json(await fetch(`${await other.url}/api/runs/${runId}`));
    expect(run.status).toBe('aborted');
    expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'aborted', cancelledBy: 'api' });
  });

  it('a paused run keeps input for its resume; an ended run is 409 run_ended; an unknown run 404', async () => {
    const notes = noteTool();
    const first = await startTestServer({ model: noteModel(), tools: [notes.tool], store: storeUrl });
    const paused = await postJson(`${first.url}/api/chat`, { prompt: 'note twice' });
    expect(paused.body.status).toBe('awaiting_approval');
    const runId = paused.body.runId as string;
    const elsewhere = await other.url;
    const kept = await postJson(`${elsewhere}/api/runs/${runId}/input`, { content: 'then stop' });
    expect(kept).toMatchObject({ status: 202, body: { delivery: 'journal' } });
    const cancelled = await postJson(`${elsewhere}/api/runs/${runId}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 202, body: { delivery: 'journal' } });
    expect(notes.written).toEqual([]);
    const ended = await postJson(`${elsewhere}/api/runs/${runId}/input`, { content: 'more' });
    expect(ended).toMatchObject({ status: 409, body: { error: { code: 'run_ended' } } });
    const again = await postJson(`${elsewhere}/api/runs/${runId}/cancel`, {});
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'run_ended' } } });
    const unknown = await postJson(`${elsewhere}/api/runs/no-such-run/input`, { content: 'x' });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const empty = await postJson(`${elsewhere}/api/runs/${runId}/input`, { content: '' });
    expect(empty.status).toBe(400);
  });
});

suite('a run on a queue worker process, steered and cancelled through the server', { timeout: 60_000 }, () => {
  const prefix = newPrefix();
  const { schema, url: storeUrl } = newSchemaStoreUrl();
  let worker: WorkerProcess;

  beforeAll(async () => {
    worker = startWorker(prefix, storeUrl);
    await worker.ready;
  }, 120_000);

  afterAll(async () => {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await dropPrefix(prefix);
    await dropSchema(schema);
  }, 60_000);

  const queued = () => ({ store: storeUrl, redis: REDIS_URL, queuePrefix: prefix, modelId: 'test:echo' });

  it('input reaches the worker at its next step boundary; the run goes on with it', async () => {
    const server = await startTestServer(queued());
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'hello', skill: 'slow' });
    const runs = async () => (await json(await fetch(`${server.url}/api/runs?status=running`))).runs;
    let list = await runs();
    while (list.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = await runs();
    }
    const runId = list[0].runId as string;
    const answer = await postJson(`${server.url}/api/runs/${runId}/input`, { content: 'steered' });
    expect(answer).toMatchObject({ status: 202, body: { delivery: 'signal' } });
    const done = await chat;
    expect(done.body.status).toBe('completed');
    expect(done.body.answer).toBe(`${worker.child.pid} heard 2: steered`);
    const run = await waitForRun(server.url, runId, (found) => found.status === 'completed');
    expect((run as { events: { type: string }[] }).events.map((event) => event.type)).toContain('input');
  });

  it('cancel stops the run on the worker: aborted with cancelledBy', async () => {
    const server = await startTestServer(queued());
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'hello', skill: 'slow' });
    let list: { runId: string }[] = [];
    while (list.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = (await json(await fetch(`${server.url}/api/runs?status=running`))).runs;
    }
    const runId = list[0]?.runId as string;
    expect((await postJson(`${server.url}/api/runs/${runId}/cancel`, {})).status).toBe(202);
    expect((await chat).body.status).toBe('aborted');
    const run = await waitForRun(server.url, runId, (found) => found.status === 'aborted');
    expect((run as { events: { type: string }[] }).events.at(-1)).toMatchObject({ cancelledBy: 'api' });
  });
});

describe('steering with named keys (BRIDLE_API_KEYS_FILE)', () => {
  it("another tenant's run is 404 for input and cancel; the key's name is journaled as who steered", async () => {
    const store = await openStore('memory:');
    const at = (sequence: number) => ({ runId: 'globex-run', sequence, timestamp: new Date().toISOString() });
    await store.appendEvents('globex-run', [
      { ...at(0), type: 'run_start', model: 'test:x', prompt: 'hi', tenant: 'globex' },
      { ...at(1), type: 'model_start', step: 1, attempt: 1 },
    ]);
    const server = await startTestServer({
      model: echoModel(),
      store,
      env: { BRIDLE_API_KEYS_FILE: writeKeysFile([KEYS.acme, KEYS.globex]) },
    });
    const heard: unknown[] = [];
    await store.listenRunSignals?.('globex-run', (signal) => heard.push(signal));
    for (const path of ['input', 'cancel']) {
      const refused = await postJson(`${server.url}/api/runs/globex-run/${path}`, { content: 'x' }, bearer(KEYS.acme));
      expect(refused).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    }
    const own = await postJson(`${server.url}/api/runs/globex-run/input`, { content: 'hello' }, bearer(KEYS.globex));
    expect(own).toMatchObject({ status: 202, body: { delivery: 'signal' } });
    while (heard.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heard).toEqual([{ type: 'input', id: expect.any(String), content: 'hello', by: 'globex-app' }]);
    await store.close();
  });
});
