// `bridle runs <id>`: one run, with each call that needed a decision and who decided it.
import { mkdirSync, realpathSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '@bridle/core';
import { codingSkill, composeSkills } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer, scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';

beforeAll(requireBuild);

let servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const sqliteError = await sqliteProblem('runs-approvals tests');
const usage = { inputTokens: 10, outputTokens: 5 };
const write = (id: string, path: string) => ({
  content: '',
  toolCalls: [{ id, name: 'write_file', arguments: { path, content: 'x' } }],
  usage,
});

describe.skipIf(sqliteError !== undefined)('bridle runs <id>: who decided', { timeout: 120_000 }, () => {
  it('shows each approval with decidedBy and by: one waiting, then a person (the CLI user) and a policy (no terminal)', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const workspace = realpathSync(join(cwd, 'project'));
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const { tools, system } = composeSkills([codingSkill({ workspace: await Workspace.open(workspace) })]);
    const journal = await openStore(store);
    const paused = await runAgent({
      model: scriptedModel([write('w1', 'a.txt')], { id: 'openai:fake-model' }),
      tools,
      ...(system === undefined ? {} : { system }),
      prompt: 'Write files',
      store: journal,
      approve: () => 'ask',
      manifest: { workspace },
    });
    await journal.close();
    expect(paused.status).toBe('awaiting_approval');
    const env = cliEnv();

    const waiting = await runCli(['runs', paused.runId, '--store', store], { cwd, env });
    expect(waiting.code).toBe(0);
    expect(waiting.stdout.split('\n').slice(1)).toEqual(['Approvals:', '  w1  write_file  waiting for a decision', '']);

    const server = await fakeOpenAIServer([write('w2', 'b.txt'), { content: 'Wrote them.', usage }]);
    servers.push(server);
    const resumed = await runCli(['resume', paused.runId, '--store', store, '--approve', 'w1'], {
      cwd,
      env: fakeOpenAIEnv(server, { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME as string }),
    });
    // w2 needs a decision too; without a terminal the CLI's policy denies it.
    expect(resumed.stdout).toBe('Wrote them.\n');

    const shown = await runCli(['runs', paused.runId, '--store', store], { cwd, env });
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[0]).toMatch(new RegExp(`^${paused.runId}  completed  openai:fake-model  \\d{4}-`));
    expect(shown.stdout.split('\n').slice(1)).toEqual([
      'Approvals:',
      `  w1  write_file  approved  decidedBy person  by ${userInfo().username}`,
      '  w2  write_file  denied  decidedBy policy',
      '',
    ]);
    const json = await runCli(['runs', paused.runId, '--store', store, '--json'], { cwd, env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      runId: paused.runId,
      status: 'completed',
      model: 'openai:fake-model',
      approvals: [
        { callId: 'w1', name: 'write_file', approved: true, decidedBy: 'person', by: userInfo().username },
        { callId: 'w2', name: 'write_file', approved: false, decidedBy: 'policy' },
      ],
    });
    const unknown = await runCli(['runs', 'no-such-run', '--store', store], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No run "no-such-run"');
  });
});
