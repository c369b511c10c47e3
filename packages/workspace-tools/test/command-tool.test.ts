import { chmod, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { type CommandArguments, type CommandPreset, commandTool, Workspace } from '../src/index';
import { context, isRunning, refusal, snapshot, tempTree } from './helpers';

async function setup(presets: Record<string, CommandPreset>, options = {}, files: Record<string, string> = {}) {
  const tree = await tempTree(files);
  const workspace = await Workspace.open(tree.root);
  const tool = commandTool(workspace, presets, options);
  return { ...tree, workspace, tool };
}

/** Polls until a file exists inside the workspace (the child wrote it), then returns its text. */
async function waitForFile(path: string): Promise<string> {
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim().split('\n').length >= 2) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// sh is the preset executable the test author chose: it starts two grandchildren (sleep 30) and
// records every pid in pids.txt, so the test can check the whole tree is gone.
const TREE_SCRIPT = 'sleep 30 & echo $! > pids.txt; sleep 30 & echo $! >> pids.txt; wait';

describe('commandTool', () => {
  it('runs a preset without a shell: params appended after the fixed args in declaration order, one argv entry each', async () => {
    const { tool } = await setup({
      show: {
        executable: 'printf',
        args: ['[%s]'],
        params: { first: { type: 'string' }, second: { type: 'string', enum: ['b c', 'd'] } },
      },
    });
    const result = await tool.execute(
      { command: 'show', params: { second: 'b c', first: '$(touch pwned) ; *' } },
      context(),
    );
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      stdout: '[$(touch pwned) ; *][b c]',
      stderr: '',
      timedOut: false,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('has an enum of preset names in its schema and no other top-level properties', async () => {
    const { tool } = await setup({ a: { executable: 'true' }, b: { executable: 'false' } });
    expect(tool.name).toBe('run_command');
    expect(tool.parameters).toMatchObject({
      required: ['command'],
      additionalProperties: false,
      properties: { command: { type: 'string', enum: ['a', 'b'] } },
    });
    expect(tool.readOnly).toBeUndefined();
  });

  it("shows each preset's description in the tool's description and in the command property's schema", async () => {
    const { tool } = await setup({
      test: { executable: 'true', description: 'Run the unit tests once.' },
      lint: { executable: 'false' },
    });
    const truePath = (tool.description.match(/\(runs (\S+)\)/) ?? [])[1];
    expect(tool.description.split('\n').slice(1)).toEqual([
      `- test: Run the unit tests once. (runs ${truePath})`,
      `- lint: (runs ${truePath?.replace(/true$/, 'false')})`,
    ]);
    expect(tool.parameters).toMatchObject({
      properties: {
        command: {
          enum: ['test', 'lint'],
          description: 'Which preset command to run: "test" Run the unit tests once..',
        },
      },
    });
  });

  it('a preset whose executable disappeared after creation is a tool error, not a crash', async () => {
    const { outside } = await tempTree();
    const executable = join(outside, 'vanishing');
    await writeFile(executable, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    const { tool } = await setup({ gone: { executable } });
    await rm(executable);
    const error = await refusal(tool.execute({ command: 'gone' }, context()));
    expect(error).toMatchObject({ code: 'command_failed' });
    expect(error.message).toBe(`Command "gone" could not start: spawn ${executable} ENOENT`);
  });

  it('a preset whose executable lost its execute permission is a tool error', async () => {
    const { outside } = await tempTree();
    const executable = join(outside, 'locked');
    await writeFile(executable, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    const { tool } = await setup({ locked: { executable } });
    await chmod(executable, 0o644);
    const error = await refusal(tool.execute({ command: 'locked' }, context()));
    expect(error).toMatchObject({ code: 'command_failed' });
    expect(error.message).toBe(`Command "locked" could not start: spawn ${executable} EACCES`);
  });

  it('reports a non-zero exit as a result, with stderr', async () => {
    const { tool } = await setup({ fail: { executable: 'sh', args: ['-c', 'echo oops >&2; exit 3'] } });
    expect(await tool.execute({ command: 'fail' }, context())).toMatchObject({
      exitCode: 3,
      stdout: '',
      stderr: 'oops\n',
      timedOut: false,
    });
  });

  it('passes only PATH by default, and allow-listed variables when asked', async () => {
    process.env.BRIDLE_TEST_SECRET = 'hunter2';
    process.env.BRIDLE_TEST_VISIBLE = 'shown';
    try {
      const { tool } = await setup({
        bare: { executable: 'env' },
        some: { executable: 'env', env: ['BRIDLE_TEST_VISIBLE'] },
      });
      const bare = await tool.execute({ command: 'bare' }, context());
      expect(bare.stdout).toBe(`PATH=${process.env.PATH}\n`);
      const some = await tool.execute({ command: 'some' }, context());
      expect(some.stdout.split('\n').sort()).toEqual(['', 'BRIDLE_TEST_VISIBLE=shown', `PATH=${process.env.PATH}`]);
    } finally {
      delete process.env.BRIDLE_TEST_SECRET;
      delete process.env.BRIDLE_TEST_VISIBLE;
    }
  });

  it('runs in the root by default and in a preset cwd inside the workspace', async () => {
    const { tool, root } = await setup(
      { here: { executable: 'pwd' }, sub: { executable: 'pwd', cwd: 'pkg' } },
      {},
      { 'pkg/x': '' },
    );
    expect((await tool.execute({ command: 'here' }, context())).stdout).toBe(`${root}\n`);
    expect((await tool.execute({ command: 'sub' }, context())).stdout).toBe(`${join(root, 'pkg')}\n`);
  });

  it('refuses a cwd that became a symlink, running nothing', async () => {
    const { tool, root, outside, base } = await setup({
      sub: { executable: 'touch', args: ['made-here'], cwd: 'pkg' },
    });
    await symlink(outside, join(root, 'pkg'));
    const before = await snapshot(base);
    expect((await refusal(tool.execute({ command: 'sub' }, context()))).message).toMatch(/"pkg" is a symbolic link/);
    expect(await snapshot(base)).toEqual(before);
  });

  it('caps each stream and marks the cut', async () => {
    const { tool } = await setup({
      loud: { executable: 'sh', args: ['-c', 'printf 0123456789; printf abcdefghij >&2'], maxOutputBytes: 4 },
    });
    const result = await tool.execute({ command: 'loud' }, context());
    expect(result.stdout).toBe('0123\n[output truncated: 6 more bytes not shown]');
    expect(result.stderr).toBe('abcd\n[output truncated: 6 more bytes not shown]');
  });

  it.each([
    [{ command: 'nope' }, /unknown command "nope"; choose one of grep/],
    [{ command: 'grep', params: { term: '-rf' } }, /"params.term" starts with "-"/],
    [{ command: 'grep', params: { term: '--include=*' } }, /starts with "-"/],
    [{ command: 'grep', params: {} }, /needs "params.term"/],
    [{ command: 'grep', params: { term: 'x', file: 'y' } }, /has no parameter "file"; its parameters: term/],
    [{ command: 'grep', params: { term: 5 } }, /"params.term" must be a string, got number 5/],
    [{ command: 'grep', params: { term: 'a\u0000b' } }, /NUL byte/],
    [{ command: 'grep', params: { term: 'x'.repeat(65) } }, /1 to 64 characters long, got 65/],
    [{ command: 'grep', params: { term: 'a b' } }, /must match the pattern/],
    [{ command: 'grep', params: 'term' }, /"params" must be an object/],
    [{ command: 'grep', extra: 1 }, /unknown property "extra"/],
    [{}, /"command" is required/],
  ])('refuses %j and runs nothing', async (args, message) => {
    const { tool, base } = await setup({
      grep: {
        executable: 'touch',
        params: { term: { type: 'string', minLength: 1, maxLength: 64, pattern: '^\\S+$' } },
      },
    });
    const before = await snapshot(base);
    expect((await refusal(tool.execute(args as CommandArguments, context()))).message).toMatch(message);
    expect(await snapshot(base)).toEqual(before);
  });

  it.each([
    [
      { x: { executable: 'definitely-not-a-real-program-42' } },
      /"definitely-not-a-real-program-42" was not found on PATH/,
    ],
    [{ x: { executable: './script.sh' } }, /is a relative path; give an absolute path/],
    [
      { x: { executable: '/nonexistent/bin/tool' } },
      /"\/nonexistent\/bin\/tool" does not exist or is not an executable file/,
    ],
    [{ x: { executable: 'true', timeout: 5 } }, /unknown option "timeout"/],
    [
      { x: { executable: 'true', timeoutMs: 0 } },
      /Invalid commandTool preset "x" option timeoutMs: expected an integer >= 1/,
    ],
    [{ x: { executable: 'true', params: { n: { type: 'number' } } } }, /only \{ type: 'string' \} schemas/],
    [
      { x: { executable: 'true', params: { n: { type: 'string', format: 'uri' } } } },
      /"format" "uri" is not supported; the only format is "workspace-path"/,
    ],
    [{ x: { executable: 'true', cwd: '../elsewhere' } }, /contains "\.\."/],
    [{ x: { executable: 'true', env: ['BAD NAME'] } }, /not a valid environment variable name/],
    [{ 'bad name': { executable: 'true' } }, /the name must be/],
    [
      { x: { executable: 'true', description: '' } },
      /"description" must be a non-empty string of at most 500 characters/,
    ],
    [{ x: { executable: 'true', description: 'x'.repeat(501) } }, /at most 500 characters/],
    [{}, /at least one preset/],
  ])('throws ConfigError at creation for %j', async (presets, message) => {
    const { root } = await tempTree();
    const workspace = await Workspace.open(root);
    let error: unknown;
    try {
      commandTool(workspace, presets as Record<string, CommandPreset>);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses at creation an absolute executable that is not executable', async () => {
    const { outside } = await tempTree();
    const notExecutable = join(outside, 'secret.txt');
    expect(() =>
      commandTool({ withDirectory: async () => undefined as never }, { x: { executable: notExecutable } }),
    ).toThrow(/does not exist or is not an executable file/);
  });

  it('resolves the executable to an absolute path at creation (PATH changes later do not matter)', async () => {
    const { tool } = await setup({ where: { executable: 'sh', args: ['-c', 'echo "$0"'] } });
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect((await tool.execute({ command: 'where' }, context())).stdout).toMatch(/^\/.*\/sh\n$/);
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('process groups', () => {
  it('on timeout kills the whole group, grandchildren included, before resolving', async () => {
    const { tool, root } = await setup(
      { tree: { executable: 'sh', args: ['-c', TREE_SCRIPT], timeoutMs: 300 } },
      { killGraceMs: 200 },
    );
    const result = await tool.execute({ command: 'tree' }, context());
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM' });
    const pids = (await readFile(join(root, 'pids.txt'), 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await isRunning(pid)).toBe(false);
  });

  it('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const script = "trap '' TERM; sh -c \"trap '' TERM; sleep 30\" & echo $! > pids.txt; echo $$ >> pids.txt; wait";
    const { tool, root } = await setup(
      { stubborn: { executable: 'sh', args: ['-c', script], timeoutMs: 300 } },
      { killGraceMs: 200 },
    );
    const result = await tool.execute({ command: 'stubborn' }, context());
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    for (const pid of (await readFile(join(root, 'pids.txt'), 'utf8')).trim().split('\n').map(Number)) {
      expect(await isRunning(pid)).toBe(false);
    }
  });

  it('on abort kills the whole group and throws once it is gone', async () => {
    const { tool, root } = await setup({ tree: { executable: 'sh', args: ['-c', TREE_SCRIPT] } }, { killGraceMs: 200 });
    const controller = new AbortController();
    const pending = tool.execute({ command: 'tree' }, context(controller.signal));
    const pids = (await waitForFile(join(root, 'pids.txt'))).trim().split('\n').map(Number);
    for (const pid of pids) expect(await isRunning(pid)).toBe(true);
    controller.abort();
    const error = await refusal(pending);
    expect(error).toMatchObject({ code: 'aborted' });
    expect(error.message).toMatch(/Command "tree" was aborted; its whole process group was stopped/);
    for (const pid of pids) expect(await isRunning(pid)).toBe(false);
  });

  it('does not start when the signal is already aborted', async () => {
    const { tool, root } = await setup({ make: { executable: 'touch', args: ['made'] } });
    const controller = new AbortController();
    controller.abort();
    expect(await refusal(tool.execute({ command: 'make' }, context(controller.signal)))).toMatchObject({
      code: 'aborted',
    });
    await expect(stat(join(root, 'made'))).rejects.toThrow(/ENOENT/);
  });

  it('ends background processes left behind when the direct child exits', async () => {
    const { tool, root } = await setup({
      leave: { executable: 'sh', args: ['-c', 'sleep 30 & echo $! > pids.txt; echo $$ >> pids.txt; echo done'] },
    });
    const result = await tool.execute({ command: 'leave' }, context());
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    for (const pid of (await readFile(join(root, 'pids.txt'), 'utf8')).trim().split('\n').map(Number)) {
      expect(await isRunning(pid)).toBe(false);
    }
  });

  it('a parameter cannot smuggle a second command (no shell)', async () => {
    const { tool, root } = await setup({ echo: { executable: 'echo', params: { text: { type: 'string' } } } });
    await writeFile(join(root, 'keep.txt'), 'keep');
    const result = await tool.execute(
      { command: 'echo', params: { text: 'x; rm keep.txt && echo $HOME `id`' } },
      context(),
    );
    expect(result.stdout).toBe('x; rm keep.txt && echo $HOME `id`\n');
    expect(await readFile(join(root, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('commandTool: preset patterns run in linear time', () => {
  // `^([a-z]+/?)+$` looks harmless and backtracks for ever on RegExp against "aaaa…!"; the value is the model's.
  const presets = {
    show: { executable: 'true', params: { file: { type: 'string', maxLength: 4096, pattern: '^([a-z]+/?)+$' } } },
  } satisfies Record<string, CommandPreset>;

  it('a long value the pattern refuses gets its answer', async () => {
    const { tool } = await setup(presets);
    const value = `${'a'.repeat(4000)}!`;
    expect((await refusal(tool.execute({ command: 'show', params: { file: value } }, context()))).message).toMatch(
      /"params.file" must match the pattern \^\(\[a-z\]\+\/\?\)\+\$/,
    );
    expect((await tool.execute({ command: 'show', params: { file: 'src/lib' } }, context())).exitCode).toBe(0);
  });

  it('ECMAScript spellings keep their meaning; lookaround and backreferences are refused at creation', async () => {
    const { tool } = await setup({
      show: { executable: 'true', params: { name: { type: 'string', pattern: '^caf\\u00e9\\s\\p{Letter}+$' } } },
    });
    expect((await tool.execute({ command: 'show', params: { name: 'café\u00a0Ω' } }, context())).exitCode).toBe(0);
    for (const pattern of ['^(?!x)', '(a)\\1']) {
      await expect(
        setup({ show: { executable: 'true', params: { name: { type: 'string', pattern } } } }),
      ).rejects.toThrow(
        `Preset "show", parameter "name": "pattern" ${JSON.stringify(pattern)} cannot run on the linear-time engine`,
      );
    }
    await expect(
      setup({ show: { executable: 'true', params: { name: { type: 'string', pattern: '(' } } } }),
    ).rejects.toThrow(ConfigError);
  });
});

describe('presets with sandbox: true', () => {
  it('need a sandbox: without one, commandTool refuses at creation naming the preset and the fix', async () => {
    const workspace = await Workspace.open((await tempTree({})).root);
    expect(() => commandTool(workspace, { test: { executable: 'true', sandbox: true } })).toThrow(
      'Preset "test" has sandbox: true, but commandTool was given no sandbox: pass { sandbox } (openBubblewrapSandbox from @bridle/sandbox, over the workspace folder), or remove "sandbox" from the preset.',
    );
    expect(() => commandTool(workspace, { test: { executable: 'true', sandbox: 'yes' as never } })).toThrow(
      'Preset "test": "sandbox" must be true or false, got "yes".',
    );
  });
});
