import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@bridle/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openBubblewrapSandbox, SandboxUnavailableError } from '../src/index';
import { withBubblewrap } from './sandbox-target';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'bridle-sandbox-open-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof Error)) throw new Error('expected a rejection');
  return error;
}

it.runIf(process.platform === 'linux')(
  'without bubblewrap: SandboxUnavailableError (a ConfigError) naming it and the fix',
  async () => {
    const error = await failure(openBubblewrapSandbox({ root: folder, bwrapPath: '/nonexistent/bwrap' }));
    expect(SandboxUnavailableError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'The sandbox needs bubblewrap, and /nonexistent/bwrap was not found. Install it (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap) or run without --sandbox.',
    );
    const onPath = process.env.PATH;
    process.env.PATH = folder;
    try {
      const missing = await failure(openBubblewrapSandbox({ root: folder }));
      expect(missing.message).toMatch(/^The sandbox needs bubblewrap, and "bwrap" was not found on PATH\. Install it/);
    } finally {
      process.env.PATH = onPath;
    }
  },
);

// A real refusal: inside a user namespace whose max_user_namespaces is 0, bwrap cannot create its own.
const canRefuse =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 0 > /proc/sys/user/max_user_namespaces'], { stdio: 'ignore' })
    .status === 0 &&
  spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status === 0;
it.runIf(canRefuse)(
  'user namespaces refused: SandboxUnavailableError at open, naming bubblewrap and the fix',
  async () => {
    const child = fileURLToPath(new URL('./fixtures/open-child.ts', import.meta.url));
    const script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';
    const result = spawnSync(
      'unshare',
      [
        '-U',
        '-r',
        'sh',
        '-c',
        script,
        'sh',
        process.execPath,
        '--conditions=@bridle/source',
        '--import',
        'tsx',
        child,
        folder,
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', timeout: 60_000 },
    );
    const seen = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(seen.unavailable).toBe(true);
    expect(seen.message).toMatch(
      /^bubblewrap \(\/\S*bwrap\) cannot create a sandbox here: bwrap: Creating new namespace failed: .*\. It needs user namespaces: enable them/,
    );
  },
);

it('refuses the root of the file system, a folder holding the home folder, and a missing folder', async () => {
  if (process.platform !== 'linux') return;
  expect((await failure(openBubblewrapSandbox({ root: '/' }))).message).toBe(
    "The sandbox's workspace is the root of the file system: commands could change everything. Give the project folder instead.",
  );
  const home = join(folder, 'home');
  await rm(home, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(home));
  expect((await failure(openBubblewrapSandbox({ root: folder, home }))).message).toBe(
    `The sandbox's workspace ${folder} holds ${home} (your home folder): commands could read and change it. Give the project folder instead.`,
  );
  expect((await failure(openBubblewrapSandbox({ root: join(folder, 'missing') }))).message).toBe(
    `The sandbox's workspace ${join(folder, 'missing')} is not a folder: give an existing directory.`,
  );
  expect(dirname(folder)).not.toBe(folder);
});

it('bad options are ConfigErrors naming the option', async () => {
  await expect(openBubblewrapSandbox({ root: folder, maxProcesses: 2 })).rejects.toThrow(ConfigError);
  await expect(openBubblewrapSandbox({ root: folder, env: ['OK', 'not a name'] })).rejects.toThrow(
    'openBubblewrapSandbox: "env" holds "not a name", which is not an environment variable name.',
  );
  await expect(openBubblewrapSandbox(undefined as never)).rejects.toThrow(
    'openBubblewrapSandbox needs { root }: the workspace folder commands may change.',
  );
});

withBubblewrap('PATH entries the sandbox hides', () => {
  it('bash found through a link in a PATH folder under /tmp still runs the command (the folder is empty inside)', async () => {
    const links = await mkdtemp(join(tmpdir(), 'bridle-sandbox-path-'));
    const workspace = await mkdtemp(join(tmpdir(), 'bridle-sandbox-ws-'));
    const onPath = process.env.PATH;
    try {
      for (const name of ['bash', 'sh', 'bwrap']) {
        const target = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
        await symlink(target, join(links, name));
      }
      // Only the folder of links, as a PATH that hides the system folders behind links would be.
      process.env.PATH = links;
      const sandbox = await openBubblewrapSandbox({ root: workspace });
      const result = await sandbox.run({ argv: ['bash', '-c', 'echo inside; command -v ls'] });
      expect(result.stdout).toBe('inside\n/usr/bin/ls\n');
      expect(result.exitCode).toBe(0);
    } finally {
      process.env.PATH = onPath;
      await rm(links, { recursive: true, force: true });
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
