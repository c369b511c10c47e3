import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool, tempStoreUrl } from './durable-helpers';
import { deferred, gatedModel, json, postJson, readSseFrames, startTestServer } from './helpers';

describe('BRIDLE_STORE: runs and sessions survive a restart', () => {
  it('a new server on the same SQLite file lists the sessions and runs of the old one and continues them', async () => {
    const store = await tempStoreUrl();
    const first = await startTestServer({ model: noteModel(), env: { BRIDLE_STORE: store }, store: undefined });
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'hello' });
    expect(chat.status).toBe(200);
    await first.shutdown();

    const second = await startTestServer({ model: noteModel(), env: { BRIDLE_STORE: store }, store: undefined });
    const sessions = await json(await fetch(`${second.url}/api/sessions`));
    expect(sessions.sessions).toEqual([
      { id: chat.body.sessionId, messageCount: 2, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    const session = await json(await fetch(`${second.url}/api/sessions/${chat.body.sessionId}`));
    expect(session.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'echo: hello' },
    ]);
    const runs = await json(await fetch(`${second.url}/api/runs`));
    expect(runs.runs).toEqual([
      {
        runId: chat.body.runId,
        status: 'completed',
        model: 'scripted:model',
        sessionId: chat.body.sessionId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        steps: 1,
        toolCalls: 0,
        usage: { inputTokens: 2, outputTokens: 3 },
        durationMs: expect.any(Number),
        title: 'hello',
      },
    ]);
    const again = await postJson(`${second.url}/api/chat`, { prompt: 'again', sessionId: chat.body.sessionId });
    expect(again.status).toBe(200);
    const continued = await json(await fetch(`${second.url}/api/sessions/${chat.body.sessionId}`));
    expect(continued.messages).toHaveLength(4);
    const bySession = await json(await fetch(`${second.url}/api/runs?sessionId=${chat.body.sessionId}&limit=1`));
    expect(bySession.runs.map((run: { runId: string }) => run.runId)).toEqual([again.body.runId]);
  });

  it('an unusable BRIDLE_STORE makes listen() reject naming the problem', async () => {
    await expect(
      startTestServer({ model: noteModel(), env: { BRIDLE_STORE: 'redis://127.0.0.1/0' }, store: undefined }),
    ).rejects.toThrow(/redis/);
  });
});

describe('GET /api/runs/:id', () => {
  it('shows status, events, and model ids without credentials', async () => {
    const model = noteModel({ id: 'openai-compatible:https://alice:s3cret@llm.example/v1?api-key=k3y#small' });
    const server = await startTestServer({ model });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'hi' });
    const run = await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`));
    expect(run.status).toBe('completed');
    expect(run.model).toBe('openai-compatible:https://llm.example/v1#small');
    expect(run.events.map((event: { type: string }) => event.type)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'run_end',
    ]);
    const text = JSON.stringify([run, await json(await fetch(`${server.url}/api/runs`))]);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('k3y');
  });

  it('answers 404 for an unknown run and 400 for an id that cannot be one', async () => {
    const server = await startTestServer({ model: noteModel() });
    const unknown = await fetch(`${server.url}/api/runs/5b0e8f4e-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.message).toBe(
      "Run 5b0e8f4e-0000-4000-8000-000000000000 does not exist in this server's store (BRIDLE_STORE).",
    );
    expect((await fetch(`${server.url}/api/runs/..%2Fetc`)).status).toBe(400);
    const limit = await fetch(`${server.url}/api/runs?limit=201`);
    expect(limit.status).toBe(400);
    expect((await json(limit)).error.message).toBe('Invalid request: querystring.limit must be at most 200, got 201.');
  });
});

describe('GET /api/runs/:id/events', () => {
  it('replays a finished run with id: and event: fields, then ends; Last-Event-ID resumes after it', async () => {
    const server = await startTestServer({ model: noteModel() });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'hi' });
    const frames = await readSseFrames(await fetch(`${server.url}/api/runs/${chat.body.runId}/events`));
    expect(frames.map((frame) => [frame.id, frame.event])).toEqual([
      ['0', 'run_start'],
      ['1', 'model_start'],
      ['2', 'model_end'],
      ['3', 'run_end'],
    ]);
    expect(frames[0]?.data.system).toBeUndefined();
    const resumed = await readSseFrames(
      await fetch(`${server.url}/api/runs/${chat.body.runId}/events`, { headers: { 'last-event-id': '1' } }),
    );
    expect(resumed.map((frame) => frame.id)).toEqual(['2', '3']);
  });

  it('refuses a Last-Event-ID that is not an integer, or past the end of an ended run, with a clear 400', async () => {
    const server = await startTestServer({ model: noteModel() });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'hi' });
    const url = `${server.url}/api/runs/${chat.body.runId}/events`;
    const word = await fetch(url, { headers: { 'last-event-id': 'abc' } });
    expect(word.status).toBe(400);
    expect((await json(word)).error.message).toBe(
      'Invalid Last-Event-ID "abc": send the integer id: of the last event received (or no header to start from the beginning).',
    );
    expect((await fetch(url, { headers: { 'last-event-id': '-1' } })).status).toBe(400);
    const future = await fetch(url, { headers: { 'last-event-id': '99' } });
    expect(future.status).toBe(400);
    expect((await json(future)).error.message).toBe(
      `Invalid Last-Event-ID 99: run ${chat.body.runId} has ended and its last event is 3. Reconnect without the header to replay it.`,
    );
    expect((await fetch(`${server.url}/api/runs/5b0e8f4e-0000-4000-8000-000000000000/events`)).status).toBe(404);
  });

  it('follows a live run: the events so far, then each new one, and ends after run_end', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model });
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'hi' });
    await gated.started;
    const runs = await json(await fetch(`${server.url}/api/runs?status=running`));
    expect(runs.runs).toHaveLength(1);
    const runId = runs.runs[0].runId as string;
    const response = await fetch(`${server.url}/api/runs/${runId}/events`);
    expect(response.status).toBe(200);
    const frames = readSseFrames(response);
    gated.release();
    expect((await chat).body.status).toBe('completed');
    const received = await frames;
    const sequences = received.map((frame) => Number(frame.id));
    expect(sequences).toEqual(sequences.map((_, index) => index));
    expect(received[0]?.event).toBe('run_start');
    expect(received.at(-1)?.event).toBe('run_end');
    expect(received.at(-1)?.data.status).toBe('completed');
  });
});

describe('GET /api/runs/:id/events of a run left running by a dead process', () => {
  it('ends once the journal stayed still longer than a run may last (run timeout + shutdown grace)', async () => {
    const store = await openStore('memory:');
    // A run_start and nothing after: its process died mid-run (no server here runs it).
    await store.appendEvents('orphan-run', [
      { type: 'run_start', runId: 'orphan-run', sequence: 0, timestamp: new Date().toISOString(), model: 'test:gone' },
    ]);
    const server = await startTestServer({ model: noteModel(), store, runTimeoutMs: 300, shutdownGraceMs: 0 });
    expect((await json(await fetch(`${server.url}/api/runs/orphan-run`))).status).toBe('running');
    const frames = await readSseFrames(await fetch(`${server.url}/api/runs/orphan-run/events`));
    expect(frames.map((frame) => [frame.id, frame.event])).toEqual([['0', 'run_start']]);
    await store.close();
  });
});

describe('approvals: a run that pauses for a person', () => {
  it('answers awaiting_approval with pendingApprovals; the decision resumes it after a restart', async () => {
    const store = await tempStoreUrl();
    const notes = noteTool();
    const options = { model: noteModel(), tools: [notes.tool], env: { BRIDLE_STORE: store }, store: undefined };
    const first = await startTestServer(options);
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'note milk' });
    expect(chat.status).toBe(200);
    expect(chat.body).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'call-milk', name: 'write_note', arguments: { text: 'milk' } }],
    });
    expect(notes.written).toEqual([]);
    const busy = await postJson(`${first.url}/api/chat`, { prompt: 'more', sessionId: chat.body.sessionId });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toBe(
      `Session ${chat.body.sessionId} has run ${chat.body.runId} waiting for approval: decide it first with POST /api/runs/${chat.body.runId}/approvals.`,
    );
    await first.shutdown();

    const second = await startTestServer(options);
    const paused = await json(await fetch(`${second.url}/api/runs/${chat.body.runId}`));
    expect(paused.status).toBe('awaiting_approval');
    expect(paused.pendingApprovals).toEqual(chat.body.pendingApprovals);
    const waiting = await json(await fetch(`${second.url}/api/runs?status=awaiting_approval`));
    expect(waiting.runs.map((run: { runId: string }) => run.runId)).toEqual([chat.body.runId]);

    const resumed = await postJson(`${second.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-milk': true },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      status: 'completed',
      answer: 'done: wrote milk',
      runId: chat.body.runId,
      sessionId: chat.body.sessionId,
    });
    expect(notes.written).toEqual(['milk']);
    const session = await json(await fetch(`${second.url}/api/sessions/${chat.body.sessionId}`));
    expect(session.pendingRunId).toBeUndefined();
    expect(session.messages.at(-1)).toEqual({ role: 'assistant', content: 'done: wrote milk' });
    const next = await postJson(`${second.url}/api/chat`, { prompt: 'thanks', sessionId: chat.body.sessionId });
    expect(next.status).toBe(200);
  });

  it('a denial resumes the run without running the call', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note eggs' });
    const denied = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-eggs': false },
    });
    expect(denied.body.status).toBe('completed');
    expect(denied.body.answer).toBe('done: Denied: the call to write_note was not approved.');
    expect(notes.written).toEqual([]);
  });

  it('resumes as SSE with Accept: text/event-stream', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note tea' });
    const response = await fetch(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ approvals: { 'call-tea': true } }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = await readSseFrames(response);
    expect(frames.map((frame) => frame.event)).toContain('tool_end');
    expect(frames.at(-1)).toMatchObject({ event: 'run_end', data: { status: 'completed', answer: 'done: wrote tea' } });
  });

  it('with Prefer: respond-async, answers 202 once the resumed segment is journaled; it runs on without the request', async () => {
    const notes = noteTool();
    const answerGate = deferred();
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'call-fig', name: 'write_note', arguments: { text: 'fig' } }] },
      async () => {
        await answerGate.promise;
        return { content: 'noted fig' };
      },
    ]);
    const server = await startTestServer({ model, tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note fig' });
    expect(chat.body.status).toBe('awaiting_approval');
    const url = `${server.url}/api/runs/${chat.body.runId}/approvals`;
    const accepted = await postJson(url, { approvals: { 'call-fig': true } }, { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toEqual({ runId: chat.body.runId, sessionId: chat.body.sessionId, status: 'running' });
    // The request has ended; the run has not: it reads as running, and another decision is refused meanwhile.
    expect((await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`))).status).toBe('running');
    const meanwhile = await postJson(url, { approvals: { 'call-fig': true } }, { prefer: 'respond-async' });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error.code).toBe('run_busy');
    answerGate.resolve();
    await expect
      .poll(async () => (await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`))).status, {
        timeout: 10_000,
      })
      .toBe('completed');
    expect(notes.written).toEqual(['fig']);
    // The session is saved as a waited-for segment saves it, and takes prompts again.
    await expect
      .poll(
        async () => (await json(await fetch(`${server.url}/api/sessions/${chat.body.sessionId}`))).messages.at(-1),
        {
          timeout: 10_000,
        },
      )
      .toEqual({ role: 'assistant', content: 'noted fig' });
    const session = await json(await fetch(`${server.url}/api/sessions/${chat.body.sessionId}`));
    expect(session.pendingRunId).toBeUndefined();
    const next = await postJson(`${server.url}/api/chat`, { prompt: 'thanks', sessionId: chat.body.sessionId });
    expect(next.status).toBe(200);
  });

  it('with Prefer: respond-async, a decision that cannot apply is still a 409 and leaves the run decidable', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note kiwi' });
    const url = `${server.url}/api/runs/${chat.body.runId}/approvals`;
    const prefer = { prefer: 'wait=5, respond-async' };
    const stale = await postJson(url, { approvals: { 'call-kiwi': { approved: true, digest: 'sha256:0' } } }, prefer);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('approval_not_pending');
    expect(notes.written).toEqual([]);
    // The refusal released the run: a decision on the pending call resumes it.
    const accepted = await postJson(url, { approvals: { 'call-kiwi': true } }, prefer);
    expect(accepted.status).toBe(202);
    await expect
      .poll(async () => (await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`))).status, {
        timeout: 10_000,
      })
      .toBe('completed');
    expect(notes.written).toEqual(['kiwi']);
  });

  it('refuses, with a 409 naming the call, a call that is not pending and a run that is not waiting', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note jam' });
    const unknown = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-other': true },
    });
    expect(unknown.status).toBe(409);
    expect(unknown.body.error).toMatchObject({
      code: 'approval_not_pending',
      message: `Cannot decide call "call-other": it is not pending in run ${chat.body.runId} (pending: "call-jam"). Nothing was run.`,
    });
    await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, { approvals: { 'call-jam': true } });
    const again = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-jam': true },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'run_not_waiting',
      message: `Cannot decide call "call-jam": run ${chat.body.runId} is not waiting for approval (status completed). Nothing was run.`,
    });
    expect(notes.written).toEqual(['jam']);
    const missing = await postJson(`${server.url}/api/runs/5b0e8f4e-0000-4000-8000-000000000000/approvals`, {
      approvals: { 'call-jam': true },
    });
    expect(missing.status).toBe(404);
    const empty = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, { approvals: {} });
    expect(empty.status).toBe(400);
    const notBoolean = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-jam': 'yes' },
    });
    expect(notBoolean.status).toBe(400);
  });

  it('a POST retried after the model reused call_1 in its next batch is a 409 naming call_1; nothing else runs', async () => {
    const notes = noteTool();
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'call_1', name: 'write_note', arguments: { text: 'milk' } }] },
      { content: '', toolCalls: [{ id: 'call_1', name: 'write_note', arguments: { text: 'rm -rf /' } }] },
      { content: 'done' },
    ]);
    const server = await startTestServer({ model, tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' });
    const digest = /^sha256:[0-9a-f]{64}$/;
    expect(chat.body.pendingApprovals).toEqual([
      { callId: 'call_1', name: 'write_note', arguments: { text: 'milk' }, digest: expect.stringMatching(digest) },
    ]);
    const url = `${server.url}/api/runs/${chat.body.runId}/approvals`;
    const first = await postJson(url, { approvals: { call_1: true } });
    expect(first.body.status).toBe('awaiting_approval');
    // The model named its next call call_1 again: the run renamed it, so no earlier decision can reach it.
    expect(first.body.pendingApprovals).toEqual([
      {
        callId: 'call_1-2',
        name: 'write_note',
        arguments: { text: 'rm -rf /' },
        digest: expect.stringMatching(digest),
      },
    ]);
    const retried = await postJson(url, { approvals: { call_1: true } });
    expect(retried.status).toBe(409);
    expect(retried.body.error).toMatchObject({
      code: 'approval_not_pending',
      message: `Cannot decide call "call_1": it is not pending in run ${chat.body.runId} (pending: "call_1-2"). Nothing was run.`,
    });
    // A decision naming the first pause's digest does not apply to the new call either.
    const stale = await postJson(url, {
      approvals: { 'call_1-2': { approved: true, digest: chat.body.pendingApprovals[0].digest } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'approval_not_pending',
      message:
        'Cannot decide call "call_1-2": the decision was made on another pause (its digest is not the pending call\'s). Nothing was run; reload the run and decide on the call it shows.',
    });
    expect(notes.written).toEqual(['milk']);
    const run = await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`));
    expect(run.pendingApprovals).toEqual(first.body.pendingApprovals);
    const denied = await postJson(url, {
      approvals: { 'call_1-2': { approved: false, digest: first.body.pendingApprovals[0].digest } },
    });
    expect(denied.body.status).toBe('completed');
    expect(notes.written).toEqual(['milk']);
    const malformed = await postJson(url, { approvals: { 'call_1-2': { approved: 'yes' } } });
    expect(malformed.status).toBe(400);
  });

  it('of two decisions sent at once, exactly one resumes the run (the call runs once)', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note once' });
    const url = `${server.url}/api/runs/${chat.body.runId}/approvals`;
    const answers = await Promise.all([1, 2, 3].map(() => postJson(url, { approvals: { 'call-once': true } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    for (const answer of answers.filter((each) => each.status === 409)) {
      expect(['run_busy', 'run_not_waiting']).toContain(answer.body.error.code);
      expect(answer.body.error.message).toMatch(/^Cannot decide call "call-once": run /);
    }
    expect(notes.written).toEqual(['once']);
  });
});

describe('the default skill', () => {
  it('is assistant, as in the CLI: a chat that names no skill gets its instructions and tools', async () => {
    const model = noteModel();
    const server = await startTestServer({ model });
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'hi' })).status).toBe(200);
    const [request] = model.requests;
    expect(request?.tools.map((tool) => tool.name).sort()).toEqual(['calculator', 'clock', 'http_fetch']);
    const session = await json(await fetch(`${server.url}/api/sessions`));
    const stored = await json(await fetch(`${server.url}/api/sessions/${session.sessions[0].id}`));
    expect(stored.skill).toBe('assistant');
  });
});
