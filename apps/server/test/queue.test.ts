import { openRunQueue } from '@bridle/queue';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServerOptions } from '../src/index';
import { json, postJson, readSseFrames, startTestServer } from './helpers';
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

const suite = await serviceSuite('queued runs (BRIDLE_REDIS_URL): a server and two worker processes');

// Workers start through tsx: slow on a loaded machine, hence the longer timeouts.
suite('queued runs: a server, two worker processes, Redis and Postgres', { timeout: 60_000 }, () => {
  const prefix = newPrefix();
  const { schema, url: storeUrl } = newSchemaStoreUrl();
  let workers: WorkerProcess[] = [];
  const pids = () => workers.map((worker) => String(worker.child.pid));
  // The server has no model of its own: only the workers can answer (with their pid).
  const queued = (): ServerOptions => ({
    store: storeUrl,
    redis: REDIS_URL,
    queuePrefix: prefix,
    modelId: 'test:echo',
  });

  beforeAll(async () => {
    workers = [startWorker(prefix, storeUrl), startWorker(prefix, storeUrl)];
    await Promise.all(workers.map((worker) => worker.ready));
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
    await dropPrefix(prefix);
    await dropSchema(schema);
  }, 60_000);

  it('streams over SSE the events of a run that a worker executes, and journals it in the shared store', async () => {
    const server = await startTestServer(queued());
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'hello' }),
    });
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('x-session-id');
    const frames = await readSseFrames(response);
    const end = frames.at(-1);
    expect(end?.event).toBe('run_end');
    expect(end?.data).toMatchObject({ type: 'run_end', status: 'completed', sessionId });
    const text = frames
      .filter((frame) => frame.event === 'text_delta')
      .map((frame) => frame.data.text)
      .join('');
    const [pid, rest] = text.split(' heard ');
    expect(pids()).toContain(pid);
    expect(rest).toBe('1: hello');
    expect(frames.every((frame) => frame.id !== undefined && Number(frame.id) >= 0)).toBe(true);
    const runId = end?.data.runId as string;
    const run = await json(await fetch(`${server.url}/api/runs/${runId}`));
    expect(run).toMatchObject({ runId, status: 'completed' });
  });

  it('a session turn is answered by a second server instance, with the turns the first one took', async () => {
    const first = await startTestServer(queued());
    const second = await startTestServer(queued());
    const one = await postJson(`${first.url}/api/chat`, { prompt: 'one' });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ status: 'completed', steps: 1, usage: { inputTokens: 3, outputTokens: 4 } });
    expect(one.body.answer).toMatch(/^\d+ heard 1: one$/);
    const two = await postJson(`${second.url}/api/chat`, { prompt: 'two', sessionId: one.body.sessionId });
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ status: 'completed', sessionId: one.body.sessionId });
    expect(two.body.answer).toMatch(/^\d+ heard 2: two$/);
    expect(pids()).toContain(two.body.answer.split(' ')[0]);
    const session = await json(await fetch(`${first.url}/api/sessions/${one.body.sessionId}`));
    expect(session.messages.map((message: { content: string }) => message.content)).toEqual([
      'one',
      one.body.answer,
      'two',
      two.body.answer,
    ]);
  });

  it('a batch job runs its items on the workers and reports each one', async () => {
    const server = await startTestServer(queued());
    const started = await postJson(`${server.url}/api/batch`, {
      items: [{ id: 'a', prompt: 'first' }, { prompt: 'second' }, { id: 7, prompt: 'third' }],
    });
    expect(started.status).toBe(202);
    let job = started.body;
    while (job.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await json(await fetch(`${server.url}/api/batch/${started.body.id}`));
    }
    expect(job.status).toBe('finished');
    expect(job.progress).toMatchObject({ total: 3, done: 3, succeeded: 3, failed: 0 });
    const results = [...job.results].sort((a, b) => a.index - b.index);
    expect(results.map((result) => [result.id, result.status])).toEqual([
      ['a', 'completed'],
      ['1', 'completed'],
      ['7', 'completed'],
    ]);
    expect(results.map((result) => result.answer.replace(/^\d+ /, ''))).toEqual([
      'heard 1: first',
      'heard 1: second',
      'heard 1: third',
    ]);
  });

  it("the server's per-run budget (--max-cost) travels with its jobs, for the workers to apply", async () => {
    const server = await startTestServer({ ...queued(), maxCostUsd: 0.75 });
    const answer = await postJson(`${server.url}/api/chat`, { prompt: 'budgeted' });
    expect(answer.status).toBe(200);
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    try {
      const job = await queue.queue.getJob(answer.body.runId);
      expect(job?.data).toMatchObject({ prompt: 'budgeted', maxCostUsd: 0.75 });
    } finally {
      await queue.close();
    }
  });

  it('the OpenAI-compatible face runs on the workers too: chat completions (streaming and not) and responses', async () => {
    const server = await startTestServer(queued());
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'bridle:assistant',
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'hello' },
      ],
    });
    const [pid, heard] = (completion.choices[0]?.message.content ?? '').split(' heard ');
    expect(pids()).toContain(pid);
    expect(heard).toBe('1: hello [instructed]');
    expect(completion.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });

    const stream = await openai.chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'streamed' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toMatch(/^\d+ heard 1: streamed$/);

    const response = await openai.responses.create({ model: 'bridle:assistant', input: 'by responses' });
    expect(response.output_text).toMatch(/^\d+ heard 1: by responses$/);

    // A skill the workers do not offer: their reason, in OpenAI's error shape.
    const refused = await openai.chat.completions
      .create({ model: 'bridle:analyst', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(String((refused as Error).message)).toContain('skill "analyst" is not offered by this worker');
  });

  it('a queued run that pauses for approval is resumed by a worker when the calls are decided', async () => {
    const server = await startTestServer(queued());
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'clean up', skill: 'guarded' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'w1', name: 'wipe', arguments: {} }],
    });
    const { runId, sessionId } = paused.body;
    // The session waits for the decision.
    const blocked = await postJson(`${server.url}/api/chat`, { prompt: 'next', sessionId });
    expect(blocked.status).toBe(409);

    const response = await fetch(`${server.url}/api/runs/${runId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ approvals: { w1: true } }),
    });
    expect(response.status).toBe(200);
    const frames = await readSseFrames(response);
    // Only the resumed segment's events (run_start stays server-side): the approved call, then the run's end;
    // nothing of the paused segment (its run_end is in the same Redis stream) comes again.
    expect(frames[0]).toMatchObject({ event: 'tool_start' });
    expect(frames.filter((frame) => frame.event === 'run_end')).toHaveLength(1);
    expect(frames.at(-1)?.data).toMatchObject({ type: 'run_end', status: 'completed' });
    expect(frames.find((frame) => frame.event === 'tool_end')?.data).toMatchObject({ name: 'wipe' });
    const run = await json(await fetch(`${server.url}/api/runs/${runId}`));
    expect(run).toMatchObject({ runId, status: 'completed' });
    expect(pids()).toContain(String(run.events.at(-1).answer).split(' wiped: ')[0]);
    expect(run.events.at(-1).answer).toMatch(/ wiped: done$/);

    // Decided already: a clear 409, nothing runs; the session takes prompts again, its transcript saved.
    const again = await postJson(`${server.url}/api/runs/${runId}/approvals`, { approvals: { w1: true } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('run_not_waiting');
    const next = await postJson(`${server.url}/api/chat`, { prompt: 'next', sessionId, skill: 'assistant' });
    expect(next.status).toBe(200);
    expect(next.body.answer).toMatch(/ heard 2: next$/);
  });

  it('with Prefer: respond-async, a decision answers 202 once enqueued, and a worker resumes the run', async () => {
    const server = await startTestServer(queued());
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'clean up', skill: 'guarded' });
    expect(paused.body.status).toBe('awaiting_approval');
    const { runId, sessionId } = paused.body;
    const accepted = await postJson(
      `${server.url}/api/runs/${runId}/approvals`,
      { approvals: { w1: true } },
      { prefer: 'respond-async' },
    );
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toEqual({ runId, sessionId, status: 'running' });
    await expect
      .poll(async () => (await json(await fetch(`${server.url}/api/runs/${runId}`))).status, { timeout: 20_000 })
      .toBe('completed');
    const run = await json(await fetch(`${server.url}/api/runs/${runId}`));
    expect(run.events.at(-1).answer).toMatch(/ wiped: done$/);
    // The server followed the job to its end for the session: it takes prompts again.
    await expect
      .poll(
        async () =>
          (await postJson(`${server.url}/api/chat`, { prompt: 'next', sessionId, skill: 'assistant' })).status,
        {
          timeout: 20_000,
        },
      )
      .toBe(200);
  });

  it('two servers deciding one paused run differently at once: one resumes it, the other answers 409', async () => {
    const first = await startTestServer(queued());
    const second = await startTestServer(queued());
    const paused = await postJson(`${first.url}/api/chat`, { prompt: 'clean up', skill: 'guarded' });
    expect(paused.body.status).toBe('awaiting_approval');
    const { runId } = paused.body;
    const answers = await Promise.all([
      postJson(`${first.url}/api/runs/${runId}/approvals`, { approvals: { w1: true } }),
      postJson(`${second.url}/api/runs/${runId}/approvals`, { approvals: { w1: false } }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    // Refused before enqueueing (the run no longer waited), or by the worker (both read it waiting).
    expect(['run_busy', 'run_not_waiting']).toContain(refused?.body.error.code);
    const run = await json(await fetch(`${first.url}/api/runs/${runId}`));
    expect(run.status).toBe('completed');
    expect(run.events.filter((event: { type: string }) => event.type === 'run_start')).toHaveLength(2);
  });

  it("jobs in Redis never hold the model id's credentials: the workers use their own", async () => {
    const secret = 'sk-queued-secret-7f3a';
    const server = await startTestServer({
      ...queued(),
      modelId: `openai-compatible:https://bridle:${secret}@models.example/v1?api-key=${secret}#llama3.2`,
    });
    // The test workers offer test:echo only: they refuse the job, which is then left in Redis to inspect.
    const refused = await postJson(`${server.url}/api/chat`, { prompt: 'no keys in the queue' });
    expect(refused.status).toBe(502);
    const runId = refused.body.error.message.match(/Run (\S+) failed/)?.[1] as string;
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    try {
      const job = await queue.queue.getJob(runId);
      expect(job?.data.model).toBe('openai-compatible:https://models.example/v1#llama3.2');
      // Every key the deployment wrote, read raw: the secret is nowhere (job data, events, results).
      const client = (await queue.queue.getBackend().client) as unknown as {
        scan(...args: (string | number)[]): Promise<[string, string[]]>;
        type(key: string): Promise<string>;
        hgetall(key: string): Promise<Record<string, string>>;
        get(key: string): Promise<string | null>;
        xrange(key: string, start: string, end: string): Promise<unknown>;
        lrange(key: string, start: number, end: number): Promise<string[]>;
        zrange(key: string, start: number, end: number): Promise<string[]>;
        smembers(key: string): Promise<string[]>;
      };
      const read = async (key: string): Promise<unknown> => {
        const type = await client.type(key);
        if (type === 'hash') return client.hgetall(key);
        if (type === 'string') return client.get(key);
        if (type === 'stream') return client.xrange(key, '-', '+');
        if (type === 'list') return client.lrange(key, 0, -1);
        if (type === 'zset') return client.zrange(key, 0, -1);
        if (type === 'set') return client.smembers(key);
        return type;
      };
      let cursor = '0';
      let keys = 0;
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        for (const key of found) {
          keys += 1;
          expect(JSON.stringify(await read(key))).not.toContain(secret);
        }
      } while (cursor !== '0');
      expect(keys).toBeGreaterThan(0);
      expect(JSON.stringify(await read(`${prefix}:bridle-runs:${runId}`))).toContain('models.example');
    } finally {
      await queue.close();
    }
  });

  it('a run the workers refuse is a 502 with their reason', async () => {
    const server = await startTestServer(queued());
    const refused = await postJson(`${server.url}/api/chat`, { prompt: 'hi', skill: 'coding' });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('run_failed');
    expect(refused.body.error.message).toContain(
      'failed on a worker: skill "coding" is not offered by this worker (it offers assistant)',
    );
  });
});
