// `bridle resume` of a run whose sub-agent (agentTool) waits for approval. The CLI offers no sub-agents of
// its own, so such a run comes from the library or a server sharing the store: the sub-agent's run is never
// resumed alone (its pause is its parent's), and a resume without the tool that runs the sub-agent is refused
// before anyone is asked or anything runs.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { agentTool, runAgent } from '@bridle/core';
import { codingSkill, composeSkills } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer, scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';

beforeAll(requireBuild);

let servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const sqliteError = await sqliteProblem('CLI sub-agent tests');

describe.skipIf(sqliteError !== undefined)('bridle resume: a run paused by its sub-agent', () => {
  it('refuses the sub-agent run alone, lists the inner call with its sub-agent, and runs nothing without its tool', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const workspace = await Workspace.open(join(cwd, 'project'));
    const { tools } = composeSkills([codingSkill({ workspace })]);
    const writer = agentTool(
      {
        model: scriptedModel([
          { content: '', toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }] },
        ]),
        tools,
      },
      { name: 'writer', description: 'Writes files' },
    );
    const journal = await openStore(store);
    const paused = await runAgent({
      model: scriptedModel(
        [{ content: '', toolCalls: [{ id: 'd1', name: 'writer', arguments: { prompt: 'write' } }] }],
        {
          id: 'openai:fake-model',
        },
      ),
      tools: [writer],
      prompt: 'Delegate the writing',
      store: journal,
      approve: () => 'ask',
    });
    await journal.close();
    expect(paused.status).toBe('awaiting_approval');
    const child = paused.pendingApprovals?.[0]?.runId as string;
    const server = await fakeOpenAIServer([{ content: 'never' }]);
    servers.push(server);
    const env = fakeOpenAIEnv(server);

    const alone = await runCli(['resume', child, '-w', 'project', '--store', store, '--approve', 'w1'], { cwd, env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(
      `Run ${child} is a sub-agent of run ${paused.runId}: resume that run (bridle resume ${paused.runId}), which resumes this one where it stopped. Nothing was run.`,
    );
    // Refused before any question: these flags do not give the tool that runs the sub-agent.
    const approved = await runCli(['resume', paused.runId, '-w', 'project', '--store', store, '--approve', 'w1'], {
      cwd,
      env,
    });
    expect(approved.code).toBe(2);
    expect(approved.stderr).toContain(
      `Run ${paused.runId} waits for its sub-agent run ${child}, started by its tool writer, which these flags do not give (the CLI's own skills have no sub-agents): resume it where that tool exists (the server or program that started it). Nothing was run.`,
    );
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(cwd, 'project', 'out.txt'))).toBe(false);
  });
});
