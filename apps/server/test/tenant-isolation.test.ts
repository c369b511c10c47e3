import { openStore } from '@bridle/store';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool, tempStoreUrl } from './durable-helpers';
import { json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const TOKEN = 'a-test-token-0123456789abcdef';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** A status and error message with the id replaced, to compare another tenant's answer with an unknown id's. */
async function answerOf(response: Response, id: string) {
  const text = await response.text();
  return { status: response.status, body: text.replaceAll(id, '<id>').replace(/"requestId":"[^"]+"/, '') };
}

describe("tenants: another tenant's runs and sessions are 404, as unknown ids are", () => {
  it('on every route of /api and /v1, and the journal names the tenant and the key', async () => {
    const store = await tempStoreUrl();
    const notes = noteTool();
    const file = writeKeysFile([KEYS.acme, KEYS.globex]);
    const server = await startTestServer({
      model: noteModel(),
      tools: [notes.tool],
      env: { BRIDLE_STORE: store, BRIDLE_API_KEYS_FILE: file, BRIDLE_API_TOKEN: TOKEN },
      store: undefined,
    });
    const acme = bearer(KEYS.acme);
    const globex = bearer(KEYS.globex);
    const admin = { authorization: `Bearer ${TOKEN}` };
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' }, acme);
    expect(chat.body.status).toBe('awaiting_approval');
    const { runId, sessionId } = chat.body;
    const other = await postJson(`${server.url}/api/chat`, { prompt: 'hello' }, globex);
    expect(other.body.status).toBe('completed');

    // The same answer as for an unknown id, route by route.
    const probes: [string, string, unknown?][] = [
      ['GET', '/api/runs/:id'],
      ['GET', '/api/runs/:id/events'],
      ['POST', '/api/runs/:id/approvals', { approvals: { 'call-milk': true } }],
    ];
    for (const [method, path, body] of probes) {
      const send = (id: string) =>
        fetch(`${server.url}${path.replace(':id', id)}`, {
          method,
          headers: { ...globex, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const theirs = await answerOf(await send(runId), runId);
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(theirs, `${method} ${path}`).toEqual(await answerOf(await send(UNKNOWN), UNKNOWN));
    }
    for (const method of ['GET', 'DELETE']) {
      const send = (id: string) => fetch(`${server.url}/api/sessions/${id}`, { method, headers: globex });
      const theirs = await answerOf(await send(sessionId), sessionId);
      expect(theirs.status).toBe(404);
      expect(theirs).toEqual(await answerOf(await send(UNKNOWN), UNKNOWN));
    }
    const continued = await postJson(`${server.url}/api/chat`, { prompt: 'more', sessionId }, globex);
    expect(continued.status).toBe(404);
    expect(continued.body.error.message).toBe(
      `Session ${sessionId} does not exist: it was deleted or expired after being idle. Omit sessionId to start a new conversation.`,
    );

    // Lists hold only the caller's own.
    const runsOf = async (headers: Record<string, string>, query = '') =>
      (await json(await fetch(`${server.url}/api/runs${query}`, { headers }))).runs.map(
        (run: { runId: string }) => run.runId,
      );
    expect(await runsOf(acme)).toEqual([runId]);
    expect(await runsOf(globex)).toEqual([other.body.runId]);
    expect(await runsOf(globex, `?sessionId=${sessionId}`)).toEqual([]);
    expect(await runsOf(globex, '?status=awaiting_approval')).toEqual([]);
    expect(await runsOf(admin)).toEqual([]);
    const sessionsOf = async (headers: Record<string, string>) =>
      (await json(await fetch(`${server.url}/api/sessions`, { headers }))).sessions.map(
        (row: { id: string }) => row.id,
      );
    expect(await sessionsOf(acme)).toEqual([sessionId]);
    expect(await sessionsOf(globex)).toEqual([other.body.sessionId]);

    // The owner decides; the journal names the tenant and the key of each segment.
    const resumed = await postJson(
      `${server.url}/api/runs/${runId}/approvals`,
      { approvals: { 'call-milk': true } },
      acme,
    );
    expect(resumed.body.status).toBe('completed');
    expect(notes.written).toEqual(['milk']);
    const reader = await openStore(store);
    try {
      const starts = (await reader.readRun(runId))?.events.filter((event) => event.type === 'run_start');
      expect(starts?.map((event) => event.type === 'run_start' && [event.tenant, event.by, event.resumed])).toEqual([
        ['acme', 'acme-app', undefined],
        ['acme', 'acme-app', true],
      ]);
      expect((await reader.listRuns({ tenant: 'globex' })).map((run) => run.runId)).toEqual([other.body.runId]);
    } finally {
      await reader.close();
    }
    const events = await fetch(`${server.url}/api/runs/${runId}/events`, { headers: acme });
    expect(events.status).toBe(200);
    expect(await events.text()).toContain('event: run_end');
  });

  it("runs of the /v1 face and of batch jobs belong to the caller's tenant", async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.globex]);
    const server = await startTestServer({ model: noteModel(), env: { BRIDLE_API_KEYS_FILE: file } });
    const completion = await postJson(
      `${server.url}/v1/chat/completions`,
      { model: 'bridle:assistant', messages: [{ role: 'user', content: 'hello' }] },
      bearer(KEYS.acme),
    );
    expect(completion.status).toBe(200);
    const batch = await postJson(`${server.url}/api/batch`, { items: [{ prompt: 'a' }] }, bearer(KEYS.acme));
    expect(batch.status).toBe(202);
    const jobId = batch.body.id;
    const theirs = await fetch(`${server.url}/api/batch/${jobId}`, { headers: bearer(KEYS.globex) });
    expect(theirs.status).toBe(404);
    expect(
      (await fetch(`${server.url}/api/batch/${jobId}`, { method: 'DELETE', headers: bearer(KEYS.globex) })).status,
    ).toBe(404);
    let view = await json(await fetch(`${server.url}/api/batch/${jobId}`, { headers: bearer(KEYS.acme) }));
    for (let tries = 0; view.status === 'running' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = await json(await fetch(`${server.url}/api/batch/${jobId}`, { headers: bearer(KEYS.acme) }));
    }
    const acmeRuns = (await json(await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) }))).runs;
    expect(acmeRuns).toHaveLength(2);
    const globexRuns = (await json(await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) }))).runs;
    expect(globexRuns).toEqual([]);
    for (const run of acmeRuns) {
      expect((await fetch(`${server.url}/api/runs/${run.runId}`, { headers: bearer(KEYS.globex) })).status).toBe(404);
    }
  });

  it('BRIDLE_API_TOKEN alone sees runs journaled before tenants (tenant default)', async () => {
    const store = await tempStoreUrl();
    const before = await startTestServer({ model: noteModel(), env: { BRIDLE_STORE: store }, store: undefined });
    const chat = await postJson(`${before.url}/api/chat`, { prompt: 'hello' });
    await before.shutdown();
    const server = await startTestServer({
      model: noteModel(),
      env: { BRIDLE_STORE: store, BRIDLE_API_TOKEN: TOKEN, BRIDLE_API_KEYS_FILE: writeKeysFile([KEYS.acme]) },
      store: undefined,
    });
    const admin = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${server.url}/api/runs/${chat.body.runId}`, { headers: admin })).status).toBe(200);
    expect((await fetch(`${server.url}/api/runs/${chat.body.runId}`, { headers: bearer(KEYS.acme) })).status).toBe(404);
    expect((await fetch(`${server.url}/api/sessions/${chat.body.sessionId}`, { headers: admin })).status).toBe(200);
  });
});
