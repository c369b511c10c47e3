import { mkdtemp, readFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { json, postJson, startTestServer } from './helpers';

/** Asks to write notes.txt, then reports the tool's result. */
function writerModel() {
  return scriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `done: ${last.content}` };
    return {
      content: '',
      toolCalls: [{ id: 'call-write', name: 'write_file', arguments: { path: 'notes.txt', content: 'milk\n' } }],
    };
  });
}

describe('BRIDLE_WORKSPACE', () => {
  it('offers the coding skill as the default; its writes pause for approval, then run on Approve', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'bridle-server-workspace-'));
    const model = writerModel();
    const server = await startTestServer({ model, env: { BRIDLE_WORKSPACE: folder } });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'write the note' });
    expect(chat.body).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [
        { callId: 'call-write', name: 'write_file', arguments: { path: 'notes.txt', content: 'milk\n' } },
      ],
    });
    await expect(readFile(join(folder, 'notes.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    const resumed = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
      approvals: { 'call-write': true },
    });
    expect(resumed.body.status).toBe('completed');
    expect(await readFile(join(folder, 'notes.txt'), 'utf8')).toBe('milk\n');
    const models = await json(await fetch(`${server.url}/v1/models`));
    expect(models.data.map((entry: { id: string }) => entry.id)).toEqual([
      'bridle:coding',
      'bridle:assistant',
      'bridle:analyst',
    ]);
  });

  it('refuses a missing folder, the home folder and the root of the file system, naming the setting', async () => {
    for (const [folder, message] of [
      ['./no-such-folder-here', 'BRIDLE_WORKSPACE=./no-such-folder-here is not a folder: give an existing directory.'],
      [homedir(), 'is your home folder'],
      ['/', 'is the root of the file system'],
    ] as const) {
      const server = createServer({
        model: writerModel(),
        env: { BRIDLE_WORKSPACE: folder },
        logger: false,
        port: 0,
        store: 'memory:',
      });
      await expect(server.listen()).rejects.toThrow(message);
      await server.shutdown();
    }
  });
});

describe('BRIDLE_MAX_COST_USD', () => {
  it('is the budget of each run: a run that reached it ends budget_limit', async () => {
    const model = scriptedModel((request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return { content: 'done', usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.3 } };
      return {
        content: '',
        toolCalls: [{ id: 'call-calc', name: 'calculator', arguments: { expression: '6*7' } }],
        usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.6 },
      };
    });
    const server = await startTestServer({ model, env: { BRIDLE_MAX_COST_USD: '0.5' } });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'compute' });
    expect(chat.body.status).toBe('budget_limit');
    expect(model.requests).toHaveLength(1);
  });

  it('refuses a value that is not a positive number', () => {
    expect(() => createServer({ env: { BRIDLE_MAX_COST_USD: 'lots' }, logger: false })).toThrow(
      'Invalid server setting BRIDLE_MAX_COST_USD=lots: expected a positive number of US dollars (e.g. 0.50).',
    );
  });
});
