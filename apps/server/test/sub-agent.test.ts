// A sub-agent's (agentTool) call that needs a decision pauses the run the server started: the answer
// lists the inner call with the sub-agent's runId, and POST /api/runs/<parent>/approvals resumes both.
import { describe, expect, it } from 'vitest';
import { tempStoreUrl } from './durable-helpers';
import { json, postJson, readSse, startTestServer } from './helpers';
import { subAgentSetup as setup } from './sub-agent-helpers';

describe('a sub-agent waiting for approval', () => {
  it('pauses the run; the decision on the parent resumes the sub-agent, also after a restart', async () => {
    const store = await tempStoreUrl();
    const { notes, options } = setup();
    const first = await startTestServer({ ...options, env: { BRIDLE_STORE: store }, store: undefined });
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'delegate note milk' });
    expect(chat.status).toBe(200);
    const childRunId = chat.body.pendingApprovals?.[0]?.runId;
    expect(chat.body).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'call-milk', name: 'write_note', arguments: { text: 'milk' }, runId: childRunId }],
    });
    expect(childRunId).toEqual(expect.any(String));
    expect(childRunId).not.toBe(chat.body.runId);
    expect(notes.written).toEqual([]);
    await first.shutdown();

    const second = await startTestServer({ ...options, env: { BRIDLE_STORE: store }, store: undefined });
    const paused = await json(await fetch(`${second.url}/api/runs/${chat.body.runId}`));
    const digest = chat.body.pendingApprovals[0].digest;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(paused.pendingApprovals).toEqual([
      { callId: 'call-milk', name: 'write_note', arguments: { text: 'milk' }, runId: childRunId, digest },
    ]);
    // The sub-agent's own journal is a run of the store too.
    const child = await json(await fetch(`${second.url}/api/runs/${childRunId}`));
    expect(child).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'call-milk' }],
      parent: { runId: chat.body.runId, callId: 'delegate-1' },
    });
    // Its calls are decided on the parent (which resumes both), never on the sub-agent alone.
    const direct = await postJson(`${second.url}/api/runs/${childRunId}/approvals`, {
      approvals: { 'call-milk': true },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.error.message).toBe(
      `Cannot decide call "call-milk" on run ${childRunId}: it is a sub-agent of run ${chat.body.runId}, which waits on the same calls. Decide them there (POST /api/runs/${chat.body.runId}/approvals): that resumes both. Nothing was run.`,
    );
    expect(notes.written).toEqual([]);
    const unknown = await postJson(`${second.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'delegate-1': true },
    });
    expect(unknown.status).toBe(409);
    expect(unknown.body.error.message).toContain('(pending: "call-milk")');

    // A decision bound to another pause's digest is refused; the one bound to this call resumes both.
    const stale = await postJson(`${second.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-milk': { approved: true, digest: `sha256:${'0'.repeat(64)}` } },
    });
    expect(stale.status).toBe(409);
    expect(notes.written).toEqual([]);
    const resumed = await postJson(`${second.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-milk': { approved: true, digest } },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      status: 'completed',
      answer: 'parent: done: wrote milk',
      runId: chat.body.runId,
      sessionId: chat.body.sessionId,
    });
    expect(notes.written).toEqual(['milk']);
    expect((await json(await fetch(`${second.url}/api/runs/${childRunId}`))).status).toBe('completed');
    const session = await json(await fetch(`${second.url}/api/sessions/${chat.body.sessionId}`));
    expect(session.messages.at(-1)).toEqual({ role: 'assistant', content: 'parent: done: wrote milk' });
  });

  it('over SSE: the resumed stream carries the parent run only and ends with its run_end', async () => {
    const { notes, options } = setup();
    const server = await startTestServer(options);
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'delegate note eggs' });
    expect(chat.body.status).toBe('awaiting_approval');
    const response = await fetch(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ approvals: { 'call-eggs': false } }),
    });
    const events = await readSse(response);
    expect(events.every((event) => event.runId === chat.body.runId)).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'completed',
      answer: 'parent: done: Denied: the call to write_note was not approved.',
    });
    expect(notes.written).toEqual([]);
  });
});
