// The console's API: GET /api/runs with titles, filters, search and the waiting count; GET /api/overview
// (the store's aggregates); a run's sub-agents in GET /api/runs/:id.
import { agentTool } from '@bridle/core';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool } from './durable-helpers';
import { json, postJson, startTestServer } from './helpers';
import { delegatingModel } from './sub-agent-helpers';

const lookup = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } } },
  readOnly: true,
  execute: () => 'found',
};

/** `look ...` calls lookup once; anything else is echoed. */
function lookModel() {
  return scriptedModel(
    (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return { content: 'done', usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.5 } };
      const text = last?.role === 'user' ? last.content : '';
      if (text.startsWith('look'))
        return {
          content: '',
          toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { key: text } }],
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      return { content: `echo: ${text}`, usage: { inputTokens: 2, outputTokens: 2, costUsd: 0.25 } };
    },
    { id: 'scripted:look' },
  );
}

describe('console API', () => {
  it('GET /api/runs: titles, search, model and since filters, and the count of runs waiting for approval', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: lookModel(), tools: [lookup, notes.tool] });
    const first = await postJson(`${server.url}/api/chat`, { prompt: 'Deploy the API\nwith care' });
    const second = await postJson(`${server.url}/api/chat`, { prompt: 'look for the key' });
    expect(second.body.status).toBe('completed');
    const listed = await json(await fetch(`${server.url}/api/runs`));
    expect(listed.runs.map((run: { title: string }) => run.title)).toEqual(['look for the key', 'Deploy the API']);
    expect(listed.awaitingApproval).toBe(0);
    const found = await json(await fetch(`${server.url}/api/runs?search=${encodeURIComponent('DEPLOY the')}`));
    expect(found.runs.map((run: { runId: string }) => run.runId)).toEqual([first.body.runId]);
    const byModel = await json(await fetch(`${server.url}/api/runs?model=scripted%3Alook&limit=1`));
    expect(byModel.runs).toHaveLength(1);
    expect((await json(await fetch(`${server.url}/api/runs?model=other`))).runs).toEqual([]);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await json(await fetch(`${server.url}/api/runs?since=${later}`))).runs).toEqual([]);
    const bad = await fetch(`${server.url}/api/runs?since=yesterday`);
    expect(bad.status).toBe(400);
    const tooLong = await fetch(`${server.url}/api/runs?search=${'x'.repeat(201)}`);
    expect(tooLong.status).toBe(400);
  });

  it('counts runs waiting for approval whatever the filters', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' });
    expect(paused.body.status).toBe('awaiting_approval');
    await postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    const listed = await json(await fetch(`${server.url}/api/runs?status=completed`));
    expect(listed.runs).toHaveLength(1);
    expect(listed.awaitingApproval).toBe(1);
  });

  it('GET /api/overview: the store aggregates of a window; a bad window is a 400', async () => {
    const server = await startTestServer({ model: lookModel(), tools: [lookup] });
    await postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    await postJson(`${server.url}/api/chat`, { prompt: 'look here' });
    const overview = await json(await fetch(`${server.url}/api/overview`));
    const hour = `${new Date().toISOString().slice(0, 13)}:00:00.000Z`;
    expect(overview.runsPerHour).toEqual([{ hour, status: 'completed', runs: 2 }]);
    expect(overview.duration.runs).toBe(2);
    expect(typeof overview.duration.p50Ms).toBe('number');
    expect(overview.usagePerDay).toEqual([
      {
        day: hour.slice(0, 10),
        model: 'scripted:look',
        runs: 2,
        inputTokens: 6,
        outputTokens: 4,
        costUsd: 0.75,
      },
    ]);
    expect(overview.slowestTools.map((tool: { name: string; calls: number }) => [tool.name, tool.calls])).toEqual([
      ['lookup', 1],
    ]);
    expect(Date.parse(overview.since)).toBeLessThan(Date.now() - 23 * 3_600_000);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await json(await fetch(`${server.url}/api/overview?since=${future}`))).runsPerHour).toEqual([]);
    const reversed = await fetch(`${server.url}/api/overview?since=${future}&until=${new Date().toISOString()}`);
    expect(reversed.status).toBe(400);
    expect((await json(reversed)).error.message).toMatch(/until .* must come after since/);
  });

  it('GET /api/overview is a 501 naming the fix when the store has no runsOverview', async () => {
    const store = await openStore('memory:');
    const { runsOverview: _runsOverview, ...rest } = Object.fromEntries(
      [
        'appendEvents',
        'readRun',
        'readEvents',
        'listRuns',
        'getSession',
        'saveSession',
        'deleteSession',
        'listSessions',
        'close',
      ].map((name) => [name, (store as unknown as Record<string, (...args: unknown[]) => unknown>)[name]?.bind(store)]),
    );
    const server = await startTestServer({ model: lookModel(), store: rest as never });
    const response = await fetch(`${server.url}/api/overview`);
    expect(response.status).toBe(501);
    expect((await json(response)).error).toMatchObject({
      code: 'not_implemented',
      message: expect.stringMatching(/runsOverview/),
    });
  });

  it('GET /api/runs/:id names the sub-agent runs a run started (the waterfall nests them)', async () => {
    const helper = agentTool({ model: noteModel() }, { name: 'helper', description: 'Helps' });
    const server = await startTestServer({ model: delegatingModel(), tools: [helper] });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'delegate hello' });
    expect(chat.body.status).toBe('completed');
    const run = await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`));
    expect(run.subAgents).toHaveLength(1);
    expect(run.subAgents[0].callId).toBe('delegate-1');
    const child = await json(await fetch(`${server.url}/api/runs/${run.subAgents[0].runId}`));
    expect(child.parent).toEqual({ runId: chat.body.runId, callId: 'delegate-1' });
  });
});
