import type { RunEvent } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../src/server-config';
import { noteModel, noteTool, tempStoreUrl } from './durable-helpers';
import { json, postJson, startTestServer } from './helpers';

const DEADLINE_TEXT = 'No decision was made before the deadline; this is not a refusal by a person.';

async function eventsOf(url: string, runId: string): Promise<RunEvent[]> {
  const store = await openStore(url);
  try {
    return (await store.readRun(runId))?.events ?? [];
  } finally {
    await store.close();
  }
}

describe('approval deadlines on the server', () => {
  it('a deadline that passed while no server was up is applied when the next one starts: denied, not run', async () => {
    const store = await tempStoreUrl();
    const notes = noteTool();
    const options = {
      model: noteModel(),
      tools: [notes.tool],
      env: { BRIDLE_STORE: store, BRIDLE_APPROVAL_TIMEOUT: '1s' },
      store: undefined,
    };
    const first = await startTestServer(options);
    const chat = await postJson(`${first.url}/api/chat`, { prompt: 'note milk' });
    expect(chat.body).toMatchObject({ status: 'awaiting_approval' });
    const deadline = chat.body.pendingApprovals[0].deadline as string;
    expect(Date.parse(deadline)).toBeGreaterThan(Date.now() - 1_000);
    await first.shutdown();

    // Nobody is up: the run still waits, its deadline in the journal.
    while (Date.now() <= Date.parse(deadline)) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = await eventsOf(store, chat.body.runId);
    expect(before.at(-1)).toMatchObject({ type: 'run_end', status: 'awaiting_approval' });
    expect(before.filter((event) => event.type === 'approval_requested')).toEqual([
      expect.objectContaining({ callId: 'call-milk', name: 'write_note', deadline }),
    ]);

    const second = await startTestServer(options);
    let run = await json(await fetch(`${second.url}/api/runs/${chat.body.runId}`));
    for (let tries = 0; run.status !== 'completed' && tries < 3_000; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      run = await json(await fetch(`${second.url}/api/runs/${chat.body.runId}`));
    }
    expect(run.events.map((event: RunEvent) => event.type).join(' ')).toContain('approval_decided');
    expect(run.status).toBe('completed');
    expect(notes.written).toEqual([]);
    const decided = run.events.filter((event: RunEvent) => event.type === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({
        callId: 'call-milk',
        approved: false,
        decidedBy: 'timeout',
        by: `deadline ${deadline}`,
      }),
    ]);
    const end = run.events.at(-1);
    expect(end).toMatchObject({ type: 'run_end', status: 'completed', answer: `done: ${DEADLINE_TEXT}` });
    const session = await json(await fetch(`${second.url}/api/sessions/${chat.body.sessionId}`));
    expect(session.pendingRunId).toBeUndefined();
    expect(session.messages.at(-1)).toEqual({ role: 'assistant', content: `done: ${DEADLINE_TEXT}` });
    // Decided already: a late decision changes nothing.
    const late = await postJson(`${second.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-milk': true },
    });
    expect(late.status).toBe(409);
    expect(notes.written).toEqual([]);
  });

  it('a decision journals who made it: the API token, never a name the client sends', async () => {
    const notes = noteTool();
    const token = 'a'.repeat(32);
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool], apiToken: token });
    const headers = { authorization: `Bearer ${token}` };
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note tea' }, headers);
    expect(chat.body.pendingApprovals[0]).not.toHaveProperty('deadline');
    const spoofed = await postJson(
      `${server.url}/api/runs/${chat.body.runId}/approvals`,
      { approvals: { 'call-tea': { approved: true, by: 'the boss' } } },
      headers,
    );
    expect(spoofed.status).toBe(400);
    const resumed = await postJson(
      `${server.url}/api/runs/${chat.body.runId}/approvals`,
      { approvals: { 'call-tea': true } },
      headers,
    );
    expect(resumed.body.status).toBe('completed');
    const run = await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`, { headers }));
    expect(run.events.filter((event: RunEvent) => event.type === 'approval_decided')).toEqual([
      expect.objectContaining({ callId: 'call-tea', approved: true, decidedBy: 'person', by: 'BRIDLE_API_TOKEN' }),
    ]);
    expect(notes.written).toEqual(['tea']);
  });

  it('BRIDLE_APPROVAL_TIMEOUT takes a duration; approvalTimeoutMs milliseconds', () => {
    expect(resolveServerConfig({ env: { BRIDLE_APPROVAL_TIMEOUT: '30s' } }).approvalTimeoutMs).toBe(30_000);
    expect(resolveServerConfig({ env: { BRIDLE_APPROVAL_TIMEOUT: '2m' } }).approvalTimeoutMs).toBe(120_000);
    expect(resolveServerConfig({ env: { BRIDLE_APPROVAL_TIMEOUT: '90' } }).approvalTimeoutMs).toBe(90_000);
    expect(resolveServerConfig({ env: {}, approvalTimeoutMs: 500 }).approvalTimeoutMs).toBe(500);
    expect(resolveServerConfig({ env: {} })).not.toHaveProperty('approvalTimeoutMs');
    expect(() => resolveServerConfig({ env: { BRIDLE_APPROVAL_TIMEOUT: 'soon' } })).toThrow(
      'Invalid server setting BRIDLE_APPROVAL_TIMEOUT=soon: expected a duration such as 30s, 5m, 1h or 500ms',
    );
    expect(() => resolveServerConfig({ env: { BRIDLE_APPROVAL_TIMEOUT: '30d' } })).toThrow(
      'BRIDLE_APPROVAL_TIMEOUT=30d',
    );
    expect(() => resolveServerConfig({ env: {}, approvalTimeoutMs: 0 })).toThrow('approvalTimeoutMs: number 0');
  });
});
