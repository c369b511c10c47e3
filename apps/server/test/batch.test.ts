import type { Model } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { echoModel, gatedModel, type Json, json, postJson, startTestServer } from './helpers';

async function waitForJob(url: string, id: string) {
  let view: Json = { status: 'running' };
  await expect
    .poll(
      async () => {
        view = await json(await fetch(`${url}/api/batch/${id}`));
        return view.status;
      },
      { timeout: 20_000 },
    )
    .not.toBe('running');
  return view;
}

describe('batch jobs', () => {
  it('POST /api/batch starts a job; GET shows progress and results in input order', async () => {
    const server = await startTestServer({ model: echoModel() });
    const created = await postJson(`${server.url}/api/batch`, {
      items: [
        { id: 'a', prompt: 'first' },
        { prompt: 'second', maxSteps: 1 },
        { id: 3, prompt: 'third' },
      ],
    });
    expect(created.status).toBe(202);
    expect(created.headers.get('location')).toBe(`/api/batch/${created.body.id}`);
    expect(created.body).toMatchObject({ status: 'running', progress: { total: 3 } });
    const view = await waitForJob(server.url, created.body.id);
    expect(view).toMatchObject({
      id: created.body.id,
      status: 'finished',
      progress: { total: 3, done: 3, succeeded: 3, failed: 0, running: 0, pending: 0 },
      finishedAt: expect.any(String),
    });
    const results = view.results as { id: string; status: string; answer: string; attempts: number }[];
    expect(results.map((r) => [r.id, r.status, r.answer, r.attempts])).toEqual([
      ['a', 'completed', 'echo: first', 1],
      ['1', 'completed', 'echo: second', 1],
      ['3', 'completed', 'echo: third', 1],
    ]);
  });

  it('retries items whose model failed, through runBatch', async () => {
    let calls = 0;
    const model: Model = {
      id: 'flaky',
      generate: async () => {
        calls += 1;
        if (calls === 1) throw new Error('flaky upstream');
        return { content: 'ok' };
      },
    };
    const server = await startTestServer({ model, agent: { retry: { maxRetries: 0 } } });
    const created = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'x' }] });
    const view = await waitForJob(server.url, created.body.id);
    // The batch runner waits about a second before its retry (its default backoff).
    expect(view.results).toMatchObject([{ status: 'completed', attempts: 2 }]);
  });

  it('DELETE /api/batch/:id cancels what has not finished', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, batchConcurrency: 1 });
    const created = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'a' }, { prompt: 'b' }] });
    await gated.started;
    const cancelled = await fetch(`${server.url}/api/batch/${created.body.id}`, { method: 'DELETE' });
    expect(cancelled.status).toBe(200);
    const view = await json(cancelled);
    expect(view.status).toBe('cancelled');
    expect(view.results.map((r: { status: string; attempts: number }) => [r.status, r.attempts])).toEqual([
      ['aborted', 1],
      ['aborted', 0],
    ]);
  });

  it('answers 404 for an unknown job and 400 for a bad id or body', async () => {
    const server = await startTestServer({ model: echoModel(), maxBatchItems: 2 });
    const unknown = await fetch(`${server.url}/api/batch/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect((await fetch(`${server.url}/api/batch/nope`)).status).toBe(400);
    const tooMany = await postJson(`${server.url}/api/batch`, {
      items: [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toBe(
      'Invalid request: body.items must NOT have more than 2 items. See the server README for the request shapes.',
    );
    const empty = await postJson(`${server.url}/api/batch`, { items: [] });
    expect(empty.status).toBe(400);
    const badItem = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'a' }, { prompt: 'b', text: 'b' }] });
    expect(badItem.body.error.message).toMatch(/^Invalid request: body.items\[1\] has an unknown property "text"/);
  });

  it('keeps at most maxBatchJobs: refuses a new job while all are running, evicts finished ones', async () => {
    const gated = gatedModel();
    let calls = 0;
    const model: Model = {
      id: 'first-slow',
      generate: (request) => (calls++ === 0 ? gated.model.generate(request) : echoModel().generate(request)),
    };
    const server = await startTestServer({ model, maxBatchJobs: 1 });
    const first = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'slow' }] });
    await gated.started;
    const refused = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'x' }] });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.error.code).toBe('too_many_jobs');
    gated.release();
    await waitForJob(server.url, first.body.id);
    const second = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'x' }] });
    expect(second.status).toBe(202);
    expect((await fetch(`${server.url}/api/batch/${first.body.id}`)).status).toBe(404);
  });

  it('batch items share the run limit with chat: they wait for a slot instead of failing', async () => {
    const gated = gatedModel();
    let calls = 0;
    const model: Model = {
      id: 'first-slow',
      generate: (request) => (calls++ === 0 ? gated.model.generate(request) : echoModel().generate(request)),
    };
    const server = await startTestServer({ model, maxConcurrentRuns: 1 });
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'holds the only slot' });
    await gated.started;
    const job = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'waits' }] });
    const during = await json(await fetch(`${server.url}/api/batch/${job.body.id}`));
    expect(during.progress).toMatchObject({ done: 0, running: 1 });
    gated.release();
    await chat;
    const view = await waitForJob(server.url, job.body.id);
    expect(view.results).toMatchObject([{ status: 'completed', answer: 'echo: waits' }]);
  });
});
