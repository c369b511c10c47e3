import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { resumeRun, runAgent } from '@bridle/core';
import { codingSkill, composeSkills } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer, scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';
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

const sqliteError = await sqliteProblem('SQLite store tests');

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

/** The run ids that `bridle runs --json` lists. */
async function listRuns(cwd: string, env: Record<string, string>, extra: string[] = []) {
  const result = await runCli(['runs', '--json', ...extra], { cwd, env });
  expect(result.code).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { runId: string; status: string; model?: string });
}

// Each test drives several CLI processes one after another: give them time on a loaded machine.
describe.skipIf(sqliteError !== undefined)('runs kept in the store (SQLite)', { timeout: 180_000 }, () => {
  it('by default in the data folder, one store per project (not in the folder); bridle runs lists them newest first', async () => {
    const server = await fake([
      { content: 'One.', usage },
      { content: 'Two.', usage },
    ]);
    const cwd = tempDir();
    const env = fakeOpenAIEnv(server);
    delete (env as Record<string, string | undefined>).BRIDLE_STORE;
    expect((await runCli(['run', 'first'], { cwd, env })).code).toBe(0);
    expect((await runCli(['run', 'second'], { cwd, env })).code).toBe(0);
    expect(existsSync(join(cwd, '.bridle'))).toBe(false);
    const projects = join(env.XDG_DATA_HOME as string, 'bridle', 'projects');
    expect(existsSync(join(projects, readdirSync(projects)[0] as string, 'bridle.db'))).toBe(true);
    const runs = await listRuns(cwd, env);
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
    for (const run of runs) expect(run.model).toBe('openai:fake-model');
    const plain = await runCli(['runs'], { cwd, env });
    expect(plain.stdout.split('\n')[0]).toMatch(
      new RegExp(`^${runs[0]?.runId}  completed  openai:fake-model  \\d{4}-`),
    );
    const none = await runCli(['runs', '--status', 'awaiting_approval'], { cwd, env });
    expect(none.stderr).toContain(`No runs with status awaiting_approval in sqlite:${projects}/`);
  });

  it('bridle resume continues a run whose process was killed, without repeating the model call that completed', async () => {
    const server = await fake([
      call('c1', 'calculator', { expression: '6 * 7' }),
      { type: 'hang' },
      { content: 'It is 42.', usage },
    ]);
    const { cwd, store } = project();
    const child = startCli(['run', 'What is 6 * 7?', '--store', store], { cwd, env: fakeOpenAIEnv(server) });
    await child.waitFor(/← calculator/, 'stderr');
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    child.child.kill('SIGKILL');
    await child.exited;

    const running = await listRuns(cwd, cliEnv(), ['--store', store, '--status', 'running']);
    expect(running).toHaveLength(1);
    const resumed = await runCli(['resume', running[0]?.runId as string, '--store', store], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(resumed.stderr).toContain('✓ completed');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('It is 42.\n');
    // The first model call completed before the kill: only the interrupted one is made again.
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).toContain('42');
    expect((await listRuns(cwd, cliEnv(), ['--store', store]))[0]?.status).toBe('completed');
  });

  it('bridle resume decides the pending calls of a run awaiting approval: flags, or exit 2 naming them', async () => {
    const { cwd, store } = project();
    const workspace = await Workspace.open(join(cwd, 'project'));
    const { tools, system } = composeSkills([codingSkill({ workspace })]);
    const journal = await openStore(store);
    const paused = await runAgent({
      model: scriptedModel([call('w1', 'write_file', { path: 'out.txt', content: 'approved' })], {
        id: 'openai:fake-model',
      }),
      tools,
      ...(system === undefined ? {} : { system }),
      prompt: 'Write out.txt',
      store: journal,
      approve: () => 'ask',
    });
    await journal.close();
    expect(paused.status).toBe('awaiting_approval');
    const server = await fake([{ content: 'Wrote it.', usage }]);
    const env = fakeOpenAIEnv(server);

    expect((await listRuns(cwd, env, ['--store', store, '--status', 'awaiting_approval']))[0]?.runId).toBe(
      paused.runId,
    );
    const undecided = await runCli(['resume', paused.runId, '-w', 'project', '--store', store], { cwd, env });
    expect(undecided.code).toBe(2);
    expect(undecided.stderr).toContain(
      `Run ${paused.runId} waits for approval of: w1 write_file {"path":"out.txt","content":"approved"}. Decide with --approve <callId> or --deny <callId>`,
    );
    const unknown = await runCli(['resume', paused.runId, '-w', 'project', '--store', store, '--approve', 'nope'], {
      cwd,
      env,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Cannot decide call "nope"');
    const noTool = await runCli(['resume', paused.runId, '--store', store, '--approve', 'w1'], { cwd, env });
    expect(noTool.code).toBe(2);
    expect(noTool.stderr).toContain('a tool these flags do not give');
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(cwd, 'project', 'out.txt'))).toBe(false);

    const approved = await runCli(['resume', paused.runId, '-w', 'project', '--store', store, '--approve', 'w1'], {
      cwd,
      env,
    });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe('Wrote it.\n');
    expect(readFileSync(join(cwd, 'project', 'out.txt'), 'utf8')).toBe('approved');
    const again = await runCli(['resume', paused.runId, '--store', store], { cwd, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Run ${paused.runId} had already ended (completed): its result, unchanged.`);
    expect(again.stdout).toBe('Wrote it.\n');
    const unknownRun = await runCli(['resume', 'no-such-run', '--store', store], { cwd, env });
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr).toContain('No run "no-such-run" in sqlite:');
  });

  it('bridle resume --approve repeated after the model reused the call id approves nothing (the id was renamed)', async () => {
    const { cwd, store } = project();
    const workspace = await Workspace.open(join(cwd, 'project'));
    const { tools, system } = composeSkills([codingSkill({ workspace })]);
    const journal = await openStore(store);
    const model = scriptedModel(
      [
        call('w1', 'write_file', { path: 'out.txt', content: 'approved' }),
        call('w1', 'write_file', { path: 'other.txt', content: 'never shown to anyone' }),
      ],
      { id: 'openai:fake-model' },
    );
    const options = {
      model,
      tools,
      ...(system === undefined ? {} : { system }),
      store: journal,
      approve: () => 'ask' as const,
    };
    const paused = await runAgent({ ...options, prompt: 'Write out.txt' });
    // Decided once (here through the library, as a server on this store would): the model asks again with w1.
    const again = await resumeRun({ ...options, runId: paused.runId, approvals: { w1: true } });
    await journal.close();
    expect(again.status).toBe('awaiting_approval');
    expect(again.pendingApprovals?.map((pending) => pending.callId)).toEqual(['w1-2']);
    const server = await fake([{ content: 'Wrote it.', usage }]);
    const env = fakeOpenAIEnv(server);

    // The user's script retries its earlier decision.
    const retried = await runCli(['resume', paused.runId, '-w', 'project', '--store', store, '--approve', 'w1'], {
      cwd,
      env,
    });
    expect(retried.code).toBe(2);
    expect(retried.stderr).toContain(
      `Cannot decide call "w1": it is not pending in run ${paused.runId} (pending: "w1-2"). Nothing was run.`,
    );
    expect(existsSync(join(cwd, 'project', 'other.txt'))).toBe(false);
    expect(server.requests).toHaveLength(0);
    const undecided = await runCli(['resume', paused.runId, '-w', 'project', '--store', store], { cwd, env });
    expect(undecided.stderr).toContain(
      `waits for approval of: w1-2 write_file {"path":"other.txt","content":"never shown to anyone"}.`,
    );
    const approved = await runCli(['resume', paused.runId, '-w', 'project', '--store', store, '--approve', 'w1-2'], {
      cwd,
      env,
    });
    expect(approved.code).toBe(0);
    expect(readFileSync(join(cwd, 'project', 'other.txt'), 'utf8')).toBe('never shown to anyone');
    // The decision was journaled bound to the digest of the call it was made on.
    const reopened = await openStore(store);
    const events = (await reopened.readRun(paused.runId))?.events ?? [];
    await reopened.close();
    const decided = events.filter((event) => event.type === 'run_start' && event.approvals !== undefined).at(-1);
    expect(decided?.type === 'run_start' && decided.approvals).toEqual({
      'w1-2': { approved: true, by: userInfo().username, digest: again.pendingApprovals?.[0]?.digest },
    });
    // Who decided: the person at the terminal (--approve), by login name.
    expect(events.filter((event) => event.type === 'approval_decided').at(-1)).toMatchObject({
      callId: 'w1-2',
      approved: true,
      decidedBy: 'person',
      by: userInfo().username,
    });
  });

  it('bridle replay re-runs a stored run with no model call: exit 0 when it matches, 1 naming the first difference', async () => {
    const server = await fake([
      call('c1', 'read_file', { path: 'notes.txt' }),
      call('c2', 'write_file', { path: 'out.txt', content: 'x' }),
      { content: 'The answer is 42.', usage },
    ]);
    const { cwd, store } = project();
    const recorded = await runCli(
      ['run', 'What is the answer?', '-w', 'project', '--yes', '--store', store, '--json'],
      {
        cwd,
        env: fakeOpenAIEnv(server),
      },
    );
    expect(recorded.code).toBe(0);
    const { runId } = JSON.parse(recorded.stdout) as { runId: string };
    // No key and no endpoint: a model call would fail.
    const env = cliEnv();
    writeFileSync(join(cwd, 'project', 'out.txt'), 'changed since');

    const same = await runCli(['replay', runId, '-w', 'project', '--store', store], { cwd, env });
    expect(same.stderr).toBe(`✓ replay of ${runId} matches the recording · completed · 3 steps · 2 tool calls\n`);
    expect(same.code).toBe(0);
    // write_file got its recorded result: the file the replay found is untouched.
    expect(readFileSync(join(cwd, 'project', 'out.txt'), 'utf8')).toBe('changed since');

    const served = await runCli(['replay', runId, '--store', store, '--json'], { cwd, env });
    expect(JSON.parse(served.stdout)).toEqual({ runId, matches: true, status: 'completed', steps: 3, toolCalls: 2 });

    writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 43\n');
    const changed = await runCli(['replay', runId, '-w', 'project', '--store', store], { cwd, env });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(
      new RegExp(
        `^✗ replay of ${runId} differs: step 1, call c1 read_file: the result differs: recorded .*42.*, now .*43`,
      ),
    );
    const unknown = await runCli(['replay', 'nope', '--store', store], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No run "nope"');
  });

  it('bridle chat keeps the conversation in the store: --continue picks the newest, --session <id> a named one', async () => {
    const server = await fake([
      { content: 'Nice to meet you, Ada.', usage },
      { content: 'Your name is Ada.', usage },
      { content: 'Named hello.', usage },
      { content: 'Named again.', usage },
    ]);
    const { cwd, store } = project();
    const env = fakeOpenAIEnv(server, { BRIDLE_STORE: store });
    const first = await runCli(['chat'], { cwd, env, input: 'My name is Ada.\n' });
    expect(first.code).toBe(0);
    const second = await runCli(['chat', '--continue'], { cwd, env, input: 'What is my name?\n' });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/session [0-9a-f-]{36} \(2 messages\)/);
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).toContain('My name is Ada.');
    expect(body).toContain('Nice to meet you, Ada.');

    expect((await runCli(['chat', '--session', 'work'], { cwd, env, input: 'Hello named.\n' })).code).toBe(0);
    const named = await runCli(['chat', '--session', 'work'], { cwd, env, input: 'Again.\n' });
    expect(named.stderr).toContain('session work (2 messages)');
    const namedBody = JSON.stringify(server.requests[3]?.body);
    expect(namedBody).toContain('Hello named.');
    expect(namedBody).not.toContain('Ada');
    const both = await runCli(['chat', '--session', 'x', '--continue'], { cwd, env, input: '' });
    expect(both.code).toBe(2);
  });
});

describe.skipIf(sqliteError === undefined)('the default store where better-sqlite3 does not load', () => {
  it('warns once, naming --store and BRIDLE_STORE, and the run still works', async () => {
    const server = await fake([{ content: 'Hello.', usage }]);
    const env = fakeOpenAIEnv(server);
    delete (env as Record<string, string | undefined>).BRIDLE_STORE;
    const result = await runCli(['run', 'hi'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello.\n');
    expect(result.stderr).toContain('bridle: runs are not kept: the default store sqlite:');
    expect(result.stderr).toContain('/bridle/projects/');
    expect(result.stderr).toContain('--store or BRIDLE_STORE');
  });
});

describe('a store the user chose that cannot open', () => {
  it('is a usage error (exit 2) naming the URL and the accepted forms', async () => {
    const result = await runCli(['runs', '--store', 'redis://localhost']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown store URL redis://localhost: the scheme 'redis:' is not supported");
  });
});
