// Issue 36 items 1 and 6: `bridle resume` of a run that already ended shows its result as it ended, and
// `bridle replay` replays the decisions the run recorded (`bridle resume --deny` included).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
async function fake(script: Parameters<typeof fakeOpenAIServer>[0]): Promise<FakeProviderServer> {
  const server = await fakeOpenAIServer(script);
  servers.push(server);
  return server;
}

const sqliteError = await sqliteProblem('resume and replay tests');

const usage = { inputTokens: 10, outputTokens: 5 };
const call = (id: string, name: string, args: unknown) => ({
  content: '',
  toolCalls: [{ id, name, arguments: args }],
  usage,
});

function project(): { cwd: string; store: string } {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project'));
  writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 42\n');
  return { cwd, store: `sqlite:${join(cwd, 'runs.db')}` };
}

describe.skipIf(sqliteError !== undefined)('bridle resume of a run that already ended', { timeout: 180_000 }, () => {
  it('shows the answer and the --json result exactly as the run ended, with its exit code, and calls no model', async () => {
    const server = await fake([call('c1', 'calculator', { expression: '6 * 7' }), { content: 'It is 42.', usage }]);
    const { cwd, store } = project();
    const recorded = await runCli(['run', 'What is 6 * 7?', '--json', '--store', store], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(recorded.code).toBe(0);
    const result = JSON.parse(recorded.stdout) as { runId: string };
    // No key and no endpoint: a model call would fail.
    const env = cliEnv();

    const shown = await runCli(['resume', result.runId, '--store', store], { cwd, env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe('It is 42.\n');
    expect(shown.stderr).toBe(
      `Run ${result.runId} had already ended (completed): its result, unchanged.\n✓ completed · 2 steps · 1 tool call · 20 in / 10 out tokens\n`,
    );
    const json = await runCli(['resume', result.runId, '--store', store, '--json'], { cwd, env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(result);
    expect(server.requests).toHaveLength(2);
  });

  it('a run that ended on a limit exits 1 as it did, naming its status', async () => {
    const server = await fake([call('c1', 'calculator', { expression: '1 + 1' })]);
    const { cwd, store } = project();
    const recorded = await runCli(['run', 'Add', '--max-steps', '1', '--json', '--store', store], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(recorded.code).toBe(1);
    const { runId, status } = JSON.parse(recorded.stdout) as { runId: string; status: string };
    expect(status).toBe('step_limit');
    const shown = await runCli(['resume', runId, '--store', store], { cwd, env: cliEnv() });
    expect(shown.code).toBe(1);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toContain('✗ step_limit');
    const decided = await runCli(['resume', runId, '--store', store, '--approve', 'c1'], { cwd, env: cliEnv() });
    expect(decided.code).toBe(2);
    expect(decided.stderr).toContain(`Run ${runId} is not waiting for approval (status step_limit)`);
    expect(server.requests).toHaveLength(1);
  });
});

describe.skipIf(sqliteError !== undefined)(
  'bridle replay of a run decided with bridle resume',
  { timeout: 180_000 },
  () => {
    it('replays the recorded decisions (--deny with its reason, --approve), and the README recipe holds in CI', async () => {
      const { cwd, store } = project();
      const workspace = await Workspace.open(join(cwd, 'project'));
      const { tools, system } = composeSkills([codingSkill({ workspace })]);
      const journal = await openStore(store);
      const paused = await runAgent({
        model: scriptedModel(
          [
            {
              content: '',
              toolCalls: [
                { id: 'w1', name: 'write_file', arguments: { path: 'no.txt', content: 'denied' } },
                { id: 'w2', name: 'write_file', arguments: { path: 'yes.txt', content: 'approved' } },
              ],
              usage,
            },
          ],
          { id: 'openai:fake-model' },
        ),
        tools,
        ...(system === undefined ? {} : { system }),
        prompt: 'Write two files',
        store: journal,
        approve: () => 'ask',
      });
      await journal.close();
      expect(paused.status).toBe('awaiting_approval');
      const server = await fake([{ content: 'Wrote yes.txt only.', usage }]);
      const decided = await runCli(
        ['resume', paused.runId, '-w', 'project', '--store', store, '--deny', 'w1', '--approve', 'w2'],
        { cwd, env: fakeOpenAIEnv(server) },
      );
      expect(decided.code).toBe(0);
      expect(readFileSync(join(cwd, 'project', 'yes.txt'), 'utf8')).toBe('approved');
      expect(JSON.stringify(server.requests[0]?.body)).toContain('Denied: denied by the user (bridle resume --deny)');

      // Replayed with today's settings (no terminal, no --yes), the denial text or the approval would differ.
      const env = cliEnv();
      const same = await runCli(['replay', paused.runId, '-w', 'project', '--store', store], { cwd, env });
      expect(same.stderr).toBe(
        `✓ replay of ${paused.runId} matches the recording · completed · 2 steps · 2 tool calls\n`,
      );
      expect(same.code).toBe(0);

      // The README's recipe: keep the store file as a fixture and replay it in CI, from another folder.
      const ci = tempDir();
      mkdirSync(join(ci, 'fixtures'));
      copyFileSync(join(cwd, 'runs.db'), join(ci, 'fixtures', 'incident.db'));
      const inCi = await runCli(['replay', paused.runId, '--store', 'sqlite:fixtures/incident.db', '--json'], {
        cwd: ci,
        env,
      });
      expect(JSON.parse(inCi.stdout)).toEqual({
        runId: paused.runId,
        matches: true,
        status: 'completed',
        steps: 2,
        toolCalls: 2,
      });
      expect(inCi.code).toBe(0);
      expect(server.requests).toHaveLength(1);
    });
  },
);
