import { runAgent } from '@bridle/core';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool, tempStoreUrl } from './durable-helpers';
import { json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const TOKEN = 'a-test-token-0123456789abcdef';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** A status and body with the id replaced, to compare another tenant's answer with an unknown id's. */
async function answerOf(response: Response, id: string) {
  const text = await response.text();
  return { status: response.status, body: text.replaceAll(id, '<id>').replace(/"requestId":"[^"]+"/, '') };
}

// Every /api route, one by one, as seen by a key of another tenant: lists, aggregates, counts and the
// routes of one run (steering included). A run journaled without a tenant (by the CLI, on the shared store)
// is tenant default's: only BRIDLE_API_TOKEN (an admin key of tenant default) reaches it.
describe("tenants: no /api route shows another tenant's data", () => {
  it('lists, the overview, the awaiting count, usage, and every route of a run or session', async () => {
    const store = await tempStoreUrl();
    const cli = await openStore(store);
    const cliRun = await runAgent({
      model: scriptedModel(() => ({ content: 'from the CLI', usage: { inputTokens: 1000, outputTokens: 1000 } })),
      prompt: 'a CLI run',
      store: cli,
    });
    await cli.close();
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
    // acme: a run paused on its tool (awaiting approval) and a completed one; globex: one completed run.
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' }, acme);
    expect(paused.body.status).toBe('awaiting_approval');
    const done = await postJson(`${server.url}/api/chat`, { prompt: 'hello' }, acme);
    expect(done.body.status).toBe('completed');
    const theirs = await postJson(`${server.url}/api/chat`, { prompt: 'hi' }, globex);
    expect(theirs.body.status).toBe('completed');
    const get = async (path: string, headers: Record<string, string>) =>
      json(await fetch(`${server.url}${path}`, { headers }));

    // GET /api/runs: the rows and the count of runs awaiting a person are the caller's own.
    const listed = await get('/api/runs', globex);
    expect(listed.runs.map((run: { runId: string }) => run.runId)).toEqual([theirs.body.runId]);
    expect(listed.awaitingApproval).toBe(0);
    expect((await get('/api/runs', acme)).awaitingApproval).toBe(1);
    expect((await get('/api/runs', admin)).runs.map((run: { runId: string }) => run.runId)).toEqual([cliRun.runId]);
    // GET /api/sessions.
    expect((await get('/api/sessions', globex)).sessions.map((row: { id: string }) => row.id)).toEqual([
      theirs.body.sessionId,
    ]);
    // GET /api/overview: the aggregates count the caller's runs only (the CLI run is tenant default's).
    const overview = await get('/api/overview', globex);
    expect(overview.duration.runs).toBe(1);
    expect(overview.runsPerHour.reduce((sum: number, row: { runs: number }) => sum + row.runs, 0)).toBe(1);
    expect(
      overview.usagePerDay.map((row: { runs: number; inputTokens: number }) => [row.runs, row.inputTokens]),
    ).toEqual([[1, 2]]);
    expect(overview.slowestTools).toEqual([]);
    const ownOverview = await get('/api/overview', acme);
    expect(ownOverview.runsPerHour.reduce((sum: number, row: { runs: number }) => sum + row.runs, 0)).toBe(2);
    const adminOverview = await get('/api/overview', admin);
    expect(adminOverview.usagePerDay.map((row: { inputTokens: number }) => row.inputTokens)).toEqual([1000]);
    // GET /api/usage: the caller's tenant's day.
    expect(await get('/api/usage', globex)).toMatchObject({ tenant: 'globex', day: { tokens: 5 } });

    // Every route of one run or session: another tenant's id (and the CLI's run, for a tenant's key) answers
    // exactly as an unknown id.
    const probes: [string, string, unknown?][] = [
      ['GET', '/api/runs/:id'],
      ['GET', '/api/runs/:id/events'],
      ['POST', '/api/runs/:id/approvals', { approvals: { 'call-milk': true } }],
      ['POST', '/api/runs/:id/input', { content: 'steer' }],
      ['POST', '/api/runs/:id/cancel', {}],
      ['GET', '/api/sessions/:id'],
      ['DELETE', '/api/sessions/:id'],
    ];
    const hidden: [Record<string, string>, string, string][] = [
      [globex, paused.body.runId, paused.body.sessionId],
      [globex, cliRun.runId, paused.body.sessionId],
      [acme, cliRun.runId, theirs.body.sessionId],
    ];
    for (const [headers, runId, sessionId] of hidden) {
      for (const [method, path, body] of probes) {
        const id = path.startsWith('/api/sessions') ? sessionId : runId;
        const send = (target: string) =>
          fetch(`${server.url}${path.replace(':id', target)}`, {
            method,
            headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        const answer = await answerOf(await send(id), id);
        expect(answer.status, `${method} ${path} ${id}`).toBe(404);
        expect(answer, `${method} ${path} ${id}`).toEqual(await answerOf(await send(UNKNOWN), UNKNOWN));
      }
    }
    // Nothing of the above changed acme's run: it still waits, with no input journaled and no note written.
    const still = await get(`/api/runs/${paused.body.runId}`, acme);
    expect(still.status).toBe('awaiting_approval');
    expect(still.events.some((event: { type: string }) => event.type === 'input')).toBe(false);
    expect(notes.written).toEqual([]);
    // The CLI's run is reachable by tenant default's admin key.
    expect((await fetch(`${server.url}/api/runs/${cliRun.runId}`, { headers: admin })).status).toBe(200);
  });
});
