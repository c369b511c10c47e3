import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { postJson, startTestServer } from './helpers';

const bwrap = spawnSync('bwrap', ['--version']).status === 0;
if (!bwrap && process.env.CI !== 'true') {
  console.warn('SKIPPED @bridle/server BRIDLE_SANDBOX runs: no bubblewrap (bwrap) on PATH; apt-get install bubblewrap');
}

/** Asks for one shell command, then reports the tool's result. */
function shellModel(command: string) {
  return scriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `done: ${last.content}` };
    return { content: '', toolCalls: [{ id: 'call-shell', name: 'shell', arguments: { command } }] };
  });
}

describe('BRIDLE_SANDBOX', () => {
  it('is off by default: a workspace alone offers no shell tool', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'bridle-server-sandbox-'));
    const model = shellModel('true');
    const server = await startTestServer({ model, env: { BRIDLE_WORKSPACE: folder } });
    await postJson(`${server.url}/api/chat`, { prompt: 'run it' });
    expect(model.requests[0]?.tools.map((tool) => tool.name)).not.toContain('shell');
  });

  it('needs a workspace, and a clear value', async () => {
    for (const [env, message] of [
      [{ BRIDLE_SANDBOX: '1' }, 'BRIDLE_SANDBOX (--sandbox) needs BRIDLE_WORKSPACE=DIR (--workspace DIR)'],
      [{ BRIDLE_SANDBOX: 'yes' }, 'BRIDLE_SANDBOX must be 1, true, 0 or false, got "yes".'],
    ] as const) {
      expect(() => createServer({ model: shellModel('true'), env, logger: false, port: 0, store: 'memory:' })).toThrow(
        message,
      );
    }
  });

  (bwrap || process.env.CI === 'true' ? it : it.skip)(
    'with BRIDLE_SANDBOX=1 the coding skill offers the shell; a command waits for approval, then runs sandboxed',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'bridle-server-sandbox-'));
      const model = shellModel('echo ran > ran.txt; touch /usr/owned; echo > /dev/tcp/127.0.0.1/6379');
      const server = await startTestServer({ model, env: { BRIDLE_WORKSPACE: folder, BRIDLE_SANDBOX: '1' } });
      const chat = await postJson(`${server.url}/api/chat`, { prompt: 'run it' });
      expect(chat.body).toMatchObject({
        status: 'awaiting_approval',
        pendingApprovals: [{ callId: 'call-shell', name: 'shell' }],
      });
      await expect(readFile(join(folder, 'ran.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
      const resumed = await postJson(`${server.url}/api/runs/${chat.body.runId}/approvals`, {
        approvals: { 'call-shell': true },
      });
      expect(resumed.body.status).toBe('completed');
      expect(await readFile(join(folder, 'ran.txt'), 'utf8')).toBe('ran\n');
      const result = JSON.parse(String(resumed.body.answer).replace(/^done: /, ''));
      expect(result.refusals).toEqual([
        expect.stringMatching(/^The sandbox refused a write/),
        expect.stringMatching(/^The sandbox has no network/),
      ]);
    },
  );
});
