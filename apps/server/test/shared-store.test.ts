import { resumeRun } from '@bridle/core';
import type { Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { describe, expect, it, vi } from 'vitest';
import { noteModel, noteTool, tempStoreUrl } from './durable-helpers';
import { gatedModel, json, postJson, readSseFrames, startTestServer } from './helpers';

describe('two servers on one SQLite store', () => {
  it('a run going on in one server is followed from the other (its journal, read again until run_end)', async () => {
    const store = await tempStoreUrl();
    const gated = gatedModel();
    const running = await startTestServer({ model: gated.model, store });
    const watching = await startTestServer({ model: noteModel(), store });
    const chat = postJson(`${running.url}/api/chat`, { prompt: 'hi' });
    await gated.started;
    const listed = await json(await fetch(`${watching.url}/api/runs?status=running`));
    const runId = listed.runs[0].runId as string;
    const frames = readSseFrames(await fetch(`${watching.url}/api/runs/${runId}/events`));
    gated.release();
    expect((await chat).body.status).toBe('completed');
    const received = await frames;
    expect(received.map((frame) => frame.event)).toEqual(['run_start', 'model_start', 'model_end', 'run_end']);
    expect(received.map((frame) => Number(frame.id))).toEqual([0, 1, 2, 3]);
  });

  it('of two decisions sent at once to two servers, exactly one resumes the run (the call runs once)', async () => {
    const store = await tempStoreUrl();
    const notes = noteTool();
    const first = await startTestServer({ model: noteModel(), tools: [notes.tool], store });
    const second = await startTestServer({ model: noteModel(), tools: [notes.tool], store });
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'note twice' });
    expect(chat.body.status).toBe('awaiting_approval');
    const answers = await Promise.all(
      [first, second].map((server) =>
        postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, { approvals: { 'call-twice': true } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(notes.written).toEqual(['twice']);
    const run = await json(await fetch(`${second.url}/api/runs/${chat.body.runId}`));
    expect(run.status).toBe('completed');
    expect(run.events.filter((event: { type: string }) => event.type === 'tool_end')).toHaveLength(1);
  });
});

/** A store whose next `waiters` reads of one run wait for each other: both readers see the same journal. */
function barrierStore(store: Store) {
  let armed: { runId: string; waiting: (() => void)[]; count: number } | undefined;
  const wrapped: Store = {
    ...store,
    appendEvents: (runId, events) => store.appendEvents(runId, events),
    readRun: async (runId) => {
      const run = await store.readRun(runId);
      if (armed?.runId === runId && armed.count > 0) {
        armed.count -= 1;
        const barrier = armed;
        await new Promise<void>((resolve) => {
          barrier.waiting.push(resolve);
          if (barrier.count === 0) for (const release of barrier.waiting) release();
        });
      }
      return run;
    },
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    close: async () => {},
  };
  return { store: wrapped, arm: (runId: string, count: number) => (armed = { runId, waiting: [], count }) };
}

describe('two servers that read a paused run at the same moment', () => {
  it('both decide the same call: the journal lets one resume; the other is a 409 and the call runs once', async () => {
    const shared = await openStore(await tempStoreUrl());
    const barrier = barrierStore(shared);
    const notes = noteTool();
    const first = await startTestServer({ model: noteModel(), tools: [notes.tool], store: barrier.store });
    const second = await startTestServer({ model: noteModel(), tools: [notes.tool], store: barrier.store });
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'note race' });
    barrier.arm(chat.body.runId, 2);
    // The same clock for both: their resumed segments' events are then identical but for the server's tags.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const answers = await Promise.all(
      [first, second].map((server) =>
        postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, { approvals: { 'call-race': true } }),
      ),
    ).finally(() => vi.useRealTimers());
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body.error).toMatchObject({
      code: 'run_busy',
      message: `Cannot decide call "call-race": run ${chat.body.runId} was resumed by another decision at the same moment (another server on this store). Nothing was run here; reload the run to see its status.`,
    });
    expect(notes.written).toEqual(['race']);
    await first.shutdown();
    await second.shutdown();
    await shared.close();
  });
});

describe('a paused run decided outside the server', () => {
  it('no longer holds its session: the session takes prompts again', async () => {
    const store = await openStore('memory:');
    const notes = noteTool();
    const model = noteModel();
    const server = await startTestServer({ model, tools: [notes.tool], store });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note outside' });
    expect(chat.body.status).toBe('awaiting_approval');
    // As `bridle resume` would, on the same store.
    const result = await resumeRun({
      model,
      tools: [notes.tool],
      store,
      runId: chat.body.runId,
      approvals: { 'call-outside': true },
      // The server's run also had its skill's tools (clock, calculator, http_fetch): only the note runs here.
      allowToolChanges: true,
    });
    expect(result.status).toBe('completed');
    const next = await postJson(`${server.url}/api/chat`, { prompt: 'hello', sessionId: chat.body.sessionId });
    expect(next.status).toBe(200);
    expect(next.body.answer).toBe('echo: hello');
    expect(notes.written).toEqual(['outside']);
    await store.close();
  });
});
