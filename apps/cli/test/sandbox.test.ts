import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, fakeOpenAIEnv, requireBuild, runCli, tempDir, until } from './cli-process';

beforeAll(requireBuild);

const bwrap = spawnSync('bwrap', ['--version']).status === 0;
if (!bwrap && process.env.CI !== 'true') {
  console.warn('SKIPPED bridle --sandbox runs: no bubblewrap (bwrap) on PATH; apt-get install bubblewrap');
}
const withBubblewrap = bwrap || process.env.CI === 'true' ? describe : describe.skip;

/** A PATH holding node only: bwrap is not on it. */
function pathWithoutBwrap(): string {
  const folder = tempDir('bridle-path-');
  symlinkSync(process.execPath, join(folder, 'node'));
  return folder;
}

describe('bridle --sandbox: usage errors (exit 2)', () => {
  it('without bubblewrap: exit 2 naming it and the fix, before any model call', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const result = await runCli(['run', '--sandbox', '-w', 'project', 'hi'], {
      cwd,
      env: cliEnv({ PATH: pathWithoutBwrap(), OPENAI_API_KEY: 'sk-test' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'The sandbox needs bubblewrap, and "bwrap" was not found on PATH. Install it (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap) or run without --sandbox.',
    );
  });

  it.runIf(bwrap || process.env.CI === 'true')(
    'user namespaces refused (inside unshare, max_user_namespaces 0): exit 2 at startup naming bubblewrap',
    async () => {
      const cwd = tempDir();
      mkdirSync(join(cwd, 'project'));
      const script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';
      const result = spawnSync(
        'unshare',
        ['-U', '-r', 'sh', '-c', script, 'sh', process.execPath, BIN, 'run', '--sandbox', '-w', 'project', 'hi'],
        { cwd, env: cliEnv({ OPENAI_API_KEY: 'sk-test' }), encoding: 'utf8', timeout: 60_000 },
      );
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(
        /bubblewrap \(\S*bwrap\) cannot create a sandbox here: bwrap: Creating new namespace failed/,
      );
      expect(result.stderr).toContain('It needs user namespaces');
    },
  );

  it('--sandbox needs a workspace; --sandbox-network needs a sandbox', async () => {
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test' });
    const alone = await runCli(['run', '--sandbox', 'hi'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--sandbox needs --workspace DIR: the folder sandboxed commands may change.');
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const network = await runCli(['run', '--sandbox-network', '-w', 'project', 'hi'], { cwd, env });
    expect(network.code).toBe(2);
    expect(network.stderr).toContain('--sandbox-network needs --sandbox (or presets marked sandbox: true)');
  });
});

withBubblewrap('bridle --sandbox runs (bubblewrap)', () => {
  let server: FakeProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('offers the shell tool; the command runs in the sandbox and the model reads what it refused', async () => {
    const cwd = tempDir();
    const project = join(cwd, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'one\n');
    const outside = join(cwd, 'outside.txt');
    server = await fakeOpenAIServer([
      {
        content: '',
        toolCalls: [
          {
            id: 'call_1',
            name: 'shell',
            arguments: {
              command: `wc -l a.txt; echo two >> a.txt; echo owned > ${outside}; touch /usr/owned; echo "key=$OPENAI_API_KEY"`,
            },
          },
        ],
      },
      { content: 'Done.' },
    ]);
    const tools = await runCli(['tools', '--sandbox', '-w', 'project'], { cwd, env: fakeOpenAIEnv(server) });
    expect(tools.stdout).toMatch(/^shell +asks/m);
    const result = await runCli(['run', '--sandbox', '-w', 'project', '--yes', '--json', 'Add a line.'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(result.code).toBe(0);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(outside)).toBe(false);
    const sent = JSON.stringify(server.requests[1]?.body);
    expect(sent).toContain('1 a.txt');
    expect(sent).toContain('key=\\\\n');
    expect(sent).not.toContain('sk-test');
    expect(sent).toContain('The sandbox refused a write: only the workspace is writable');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('It runs in a sandbox: only the workspace is writable');
  });

  it('a trusted config with sandbox: true offers the shell; its presets marked sandbox: true run in it', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    writeFileSync(
      join(cwd, 'bridle.config.json'),
      JSON.stringify({
        workspace: 'project',
        sandbox: true,
        presets: {
          probe: { executable: 'bash', args: ['-c', 'echo > /dev/tcp/127.0.0.1/6379 && echo open'], sandbox: true },
        },
      }),
    );
    server = await fakeOpenAIServer([
      { content: '', toolCalls: [{ id: 'call_1', name: 'run_command', arguments: { command: 'probe' } }] },
      { content: 'Done.' },
    ]);
    const untrusted = await runCli(['tools'], { cwd, env: fakeOpenAIEnv(server) });
    expect(untrusted.stdout).not.toMatch(/^shell/m);
    const result = await runCli(['run', '--trust-project', '--yes', 'Probe.'], { cwd, env: fakeOpenAIEnv(server) });
    expect(result.code).toBe(0);
    const input = (server.requests[1]?.body as { input: { type: string; output?: string }[] } | undefined)?.input ?? [];
    const output = JSON.parse(input.find((item) => item.type === 'function_call_output')?.output ?? '{}');
    expect(output).toMatchObject({ exitCode: 1, stdout: '' });
    expect(output.refusals).toEqual([
      'The sandbox has no network: connections (even to 127.0.0.1) and name lookups fail. Work offline; only the user can allow the network.',
    ]);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('"name":"shell"');
    expect(dirname(cwd)).not.toBe(cwd);
  });
});

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript)
  console.warn('!!! SKIPPED: the sandbox terminal test needs `script` (util-linux) for a pseudo-terminal');

withBubblewrap('bridle --sandbox on a terminal (a real pseudo-terminal through script(1))', () => {
  it.skipIf(!hasScript)(
    'asks before each shell command, shows it whole; the command gets no terminal to inject keystrokes into',
    async () => {
      const cwd = tempDir();
      mkdirSync(join(cwd, 'project'));
      const ttyProbe = 'tty; (exec 3<>/dev/tty) 2>&1; echo probed';
      const fake = await fakeOpenAIServer([
        { content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: { command: ttyProbe } }] },
        { content: '', toolCalls: [{ id: 'c2', name: 'shell', arguments: { command: 'touch never.txt' } }] },
        { content: 'Done.' },
      ]);
      try {
        const command = [process.execPath, BIN, 'run', 'Probe', '-w', 'project', '--sandbox']
          .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
          .join(' ');
        const child = spawn('script', ['-qfec', command, '/dev/null'], {
          cwd,
          env: { ...fakeOpenAIEnv(fake), TERM: 'xterm' },
          stdio: 'pipe',
        });
        let screen = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          screen += chunk;
        });
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        const prompts = () => screen.split('Allow? [y] yes  [n] no  [a] always for ').length - 1;
        await until(() => prompts() === 1);
        expect(screen).toContain(`? shell ${JSON.stringify({ command: ttyProbe })}`);
        child.stdin.write('y\n');
        await until(() => prompts() === 2);
        child.stdin.write('n\n');
        expect(await exited).toBe(0);
        child.stdin.end();
        expect(existsSync(join(cwd, 'project', 'never.txt'))).toBe(false);
        const input =
          (fake.requests[1]?.body as { input: { type: string; output?: string }[] } | undefined)?.input ?? [];
        const output = JSON.parse(input.find((item) => item.type === 'function_call_output')?.output ?? '{}');
        expect(output.stdout).toBe('not a tty\nbash: line 1: /dev/tty: No such device or address\nprobed\n');
      } finally {
        await fake.close();
      }
    },
  );
});
