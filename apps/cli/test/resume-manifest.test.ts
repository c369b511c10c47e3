import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runAgent } from '@bridle/core';
import type { RunEvent } from '@bridle/protocol';
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

const sqliteError = await sqliteProblem('resume-manifest tests');

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const usage = { inputTokens: 10, outputTokens: 5 };
const call = (id: string, name: string, args: unknown) => ({
  content: '',
  toolCalls: [{ id, name, arguments: args }],
  usage,
});
const DEADLINE_TEXT = 'No decision was made before the deadline; this is not a refusal by a person.';

function project(): { cwd: string; store: string; workspace: string } {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project'));
  writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 42\n');
  return { cwd, store: `sqlite:${join(cwd, 'runs.db')}`, workspace: realpathSync(join(cwd, 'project')) };
}

async function statusOf(cwd: string, store: string, runId: string): Promise<string | undefined> {
  const listed = await runCli(['runs', '--json', '--store', store], { cwd, env: cliEnv() });
  return listed.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { runId: string; status: string })
    .find((run) => run.runId === runId)?.status;
}

/** Starts `bridle run` with `args`, waits for `marker` on stderr and for `requests` model calls, then SIGKILLs it. */
async function crashedRun(
  server: FakeProviderServer,
  cwd: string,
  args: string[],
  marker: RegExp,
  requests: number,
  env = fakeOpenAIEnv(server),
) {
  const child = startCli(['run', ...args], { cwd, env });
  await child.waitFor(marker, 'stderr');
  while (server.requests.length < requests) await new Promise((resolve) => setTimeout(resolve, 20));
  child.child.kill('SIGKILL');
  await child.exited;
}

async function onlyRunId(cwd: string, store: string): Promise<string> {
  const listed = await runCli(['runs', '--json', '--store', store, '--status', 'running'], { cwd, env: cliEnv() });
  const runs = listed.stdout.trim().split('\n').filter(Boolean);
  expect(runs).toHaveLength(1);
  return (JSON.parse(runs[0] as string) as { runId: string }).runId;
}

/** The tool names a request offered (Chat Completions or Responses shape). */
function toolNames(body: unknown): string[] {
  const tools = (body as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? [];
  return tools.map((tool) => tool.function?.name ?? tool.name ?? '');
}

describe.skipIf(sqliteError !== undefined)('bridle resume: the tools a run ran with', { timeout: 240_000 }, () => {
  it('a crashed run continues with the workspace and command presets its manifest recorded, without the flags', async () => {
    const server = await fake([
      call('c1', 'read_file', { path: 'notes.txt' }),
      { type: 'hang' },
      call('c2', 'run_command', { command: 'hello' }),
      { content: 'Ran it.', usage },
    ]);
    const { cwd, store, workspace } = project();
    // One user: the same config folder (and decision key) for the run and its resume.
    const env = fakeOpenAIEnv(server);
    await crashedRun(
      server,
      cwd,
      ['Read and run', '-w', 'project', '--allow-command', 'hello=node -e "console.log(40+2)"', '--store', store],
      /← read_file/,
      2,
      env,
    );
    const runId = await onlyRunId(cwd, store);
    const journal = await openStore(store);
    const start = (await journal.readRun(runId))?.events[0] as Extract<RunEvent, { type: 'run_start' }>;
    await journal.close();
    expect(start.manifest).toMatchObject({
      model: 'openai:fake-model',
      workspace,
      presets: [{ name: 'hello', definition: { executable: 'node' } }],
      presetsSignature: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
      limits: { maxSteps: 10 },
    });
    expect(start.manifest?.tools.map((tool) => tool.name)).toContain('run_command');

    // Another user (another decision key) does not get the presets from the journal.
    const other = await runCli(['resume', runId, '--store', store, '--yes'], { cwd, env: fakeOpenAIEnv(server) });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      `Run ${runId} recorded command presets (hello) that your decision key did not sign: they may not be yours (the store may have been written by someone else), so they are not rebuilt from it. If you trust them, give the run's tools yourself: --allow-command NAME=CMD for each, -w ${workspace}. Nothing was run; the run can still be resumed.`,
    );
    expect(server.requests).toHaveLength(2);

    // No -w, no --allow-command: the manifest gives them (the second release answered "Unknown tool: run_command").
    const resumed = await runCli(['resume', runId, '--store', store, '--yes'], { cwd, env });
    expect(resumed.stderr).toContain(
      `bridle: continuing with the tools run ${runId} had: -w ${workspace} --allow-command hello`,
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Ran it.\n');
    expect(server.requests).toHaveLength(4);
    expect(toolNames(server.requests[2]?.body)).toEqual(toolNames(server.requests[0]?.body));
    expect(JSON.stringify(server.requests[3]?.body)).toContain('42');
    expect(await statusOf(cwd, store, runId)).toBe('completed');
  });

  it('a run whose tools cannot be rebuilt is refused before any model call, naming them and the flags, and stays resumable', async () => {
    const file = join(tempDir('bridle-mcp-'), 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const server = await fake([
      call('c1', 'everything__echo', { message: 'hi' }),
      { type: 'hang' },
      { content: 'Echoed.', usage },
    ]);
    const { cwd, store } = project();
    await crashedRun(server, cwd, ['Echo', '--mcp', file, '--store', store], /← everything__echo/, 2);
    const runId = await onlyRunId(cwd, store);

    const refused = await runCli(['resume', runId, '--store', store], { cwd, env: fakeOpenAIEnv(server) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Run ${runId} had tools these flags and settings do not give: everything__echo`);
    expect(refused.stderr).toContain(
      'Pass the flags it ran with: --mcp <file> (a file with the MCP servers everything). Nothing was run; the run can still be resumed.',
    );
    // Flags the user gives replace the manifest's: analyst has no clock (assistant's) and no MCP tools.
    const other = await runCli(['resume', runId, '--store', store, '--skill', 'analyst'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('do not give: clock, everything__echo');
    expect(server.requests).toHaveLength(2);
    expect(await statusOf(cwd, store, runId)).toBe('running');

    const resumed = await runCli(['resume', runId, '--store', store, '--mcp', file], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Echoed.\n');
    expect(await statusOf(cwd, store, runId)).toBe('completed');
  });

  it('a resume with tools the run did not have, or whose arguments changed, is refused naming them unless --allow-tool-changes', async () => {
    const { cwd, store, workspace } = project();
    const coding = composeSkills([codingSkill({ workspace: await Workspace.open(workspace) })]);
    // The run's write_file took other arguments (an older release of the tool): its schema digest differs.
    const tools = coding.tools.map((tool) =>
      tool.name === 'write_file' ? { ...tool, parameters: { ...tool.parameters, description: 'older' } } : tool,
    );
    const journal = await openStore(store);
    const paused = await runAgent({
      model: scriptedModel([call('w1', 'write_file', { path: 'out.txt', content: 'new' })], {
        id: 'openai:fake-model',
      }),
      tools,
      ...(coding.system === undefined ? {} : { system: coding.system }),
      prompt: 'Write out.txt',
      store: journal,
      approve: () => 'ask',
      manifest: { workspace },
    });
    await journal.close();
    expect(paused.status).toBe('awaiting_approval');
    const server = await fake([{ content: 'Wrote it.', usage }]);
    const env = fakeOpenAIEnv(server);

    const changed = await runCli(['resume', paused.runId, '--store', store, '--approve', 'w1'], { cwd, env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(
      `Run ${paused.runId} would continue with other tools than it had (tools whose arguments changed since it ran: write_file). Pass the flags it ran with, or --allow-tool-changes to continue with these tools. Nothing was run; the run can still be resumed.`,
    );
    const added = await runCli(
      ['resume', paused.runId, '--store', store, '--approve', 'w1', '-w', workspace, '--allow-command', 'hi=node -v'],
      { cwd, env },
    );
    expect(added.code).toBe(2);
    expect(added.stderr).toContain(
      '(tools it did not have: run_command; tools whose arguments changed since it ran: write_file)',
    );
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(workspace, 'out.txt'))).toBe(false);
    expect(await statusOf(cwd, store, paused.runId)).toBe('awaiting_approval');

    const allowed = await runCli(
      ['resume', paused.runId, '--store', store, '--approve', 'w1', '--allow-tool-changes'],
      { cwd, env },
    );
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe('Wrote it.\n');
    expect(existsSync(join(workspace, 'out.txt'))).toBe(true);
  });

  it('presets in a planted store (unsigned, or changed after signing) are never run: the resume is refused', async () => {
    const { cwd, store, workspace } = project();
    const marker = join(workspace, 'planted.txt');
    const definition = {
      executable: process.execPath,
      args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`],
    };
    const coding = composeSkills([codingSkill({ workspace: await Workspace.open(workspace) })]);
    const journal = await openStore(store);
    for (const [runId, presetsSignature] of [
      ['unsigned', undefined],
      ['forged', `hmac-sha256:${'0'.repeat(64)}`],
    ] as const) {
      await runAgent({
        model: scriptedModel([call('p1', 'write_file', { path: 'x.txt', content: 'x' })], { id: 'openai:fake-model' }),
        tools: coding.tools,
        prompt: 'Plant',
        store: journal,
        runId,
        approve: () => 'ask',
        manifest: {
          workspace,
          presets: [{ name: 'build', definition }],
          ...(presetsSignature === undefined ? {} : { presetsSignature }),
        },
      });
    }
    await journal.close();
    const server = await fake([{ content: 'never', usage }]);
    for (const runId of ['unsigned', 'forged']) {
      const refused = await runCli(['resume', runId, '--store', store, '--yes'], { cwd, env: fakeOpenAIEnv(server) });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `Run ${runId} recorded command presets (build) that your decision key did not sign`,
      );
      expect(await statusOf(cwd, store, runId)).toBe('awaiting_approval');
    }
    expect(server.requests).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('a deadline that passed while no process ran is applied by the next bridle resume: the call is denied, not run', async () => {
    const { cwd, store, workspace } = project();
    const { tools, system } = composeSkills([codingSkill({ workspace: await Workspace.open(workspace) })]);
    const journal = await openStore(store);
    const paused = await runAgent({
      model: scriptedModel([call('w1', 'write_file', { path: 'out.txt', content: 'late' })], {
        id: 'openai:fake-model',
      }),
      tools,
      ...(system === undefined ? {} : { system }),
      prompt: 'Write out.txt',
      store: journal,
      approve: () => 'ask',
      approvalTimeoutMs: 1,
      manifest: { workspace },
    });
    await journal.close();
    const deadline = paused.pendingApprovals?.[0]?.deadline as string;
    expect(paused.status).toBe('awaiting_approval');
    // Nobody is up while the deadline passes.
    while (Date.now() <= Date.parse(deadline)) await new Promise((resolve) => setTimeout(resolve, 5));

    const server = await fake([{ content: 'Could not write it.', usage }]);
    // A decision made after the deadline is refused: the call is no longer pending.
    const late = await runCli(['resume', paused.runId, '--store', store, '--approve', 'w1'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('Cannot decide call "w1": it is not pending');
    const resumed = await runCli(['resume', paused.runId, '--store', store], { cwd, env: fakeOpenAIEnv(server) });
    expect(resumed.stderr).toContain(`bridle: call w1 (write_file) had no decision before its deadline (${deadline})`);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Could not write it.\n');
    expect(existsSync(join(workspace, 'out.txt'))).toBe(false);
    expect(JSON.stringify(server.requests[0]?.body)).toContain(DEADLINE_TEXT);
    const events = (await (await openStore(store)).readRun(paused.runId))?.events ?? [];
    expect(events.filter((event) => event.type === 'approval_decided')).toEqual([
      expect.objectContaining({ callId: 'w1', approved: false, decidedBy: 'timeout' }),
    ]);
    expect(await statusOf(cwd, store, paused.runId)).toBe('completed');
  });
});
