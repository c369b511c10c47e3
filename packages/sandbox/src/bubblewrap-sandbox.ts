import { realpathSync } from 'node:fs';
import { lstat, realpath, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConfigError, type Sandbox, type SandboxCommand, type SandboxResult } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { bubblewrapArguments } from './bubblewrap-arguments';
import { findCgroupParents, removeStaleGroups, startCgroupRun } from './cgroup-bounds';
import { describeRefusals } from './describe-refusals';
import { findProgram } from './find-program';
import { allEntries, DEFAULT_PROTECTED_NAMES, findProtectedEntries, type ProtectedNames } from './protected-entries';
import { runSandboxed } from './run-sandboxed';
import { SandboxUnavailableError } from './sandbox-unavailable-error';

/** Options of {@link openBubblewrapSandbox}. Times in milliseconds, sizes in bytes. */
export interface BubblewrapSandboxOptions {
  /** The workspace folder: read-write inside, except its protected paths. Never `/` or a folder holding your home. */
  root: string;
  /** Let commands use the network (the host's). Default false: a private network namespace with only loopback. */
  network?: boolean;
  /**
   * Names of environment variables passed in from this process, on top of the allow-list (`PATH`, `LANG`,
   * `LC_ALL`, `LC_CTYPE`, `TZ`). Default none: API keys and tokens never enter unless named here.
   */
  env?: readonly string[];
  /** Wall-clock limit of a command, unless the command gives its own. Default 60,000. */
  timeoutMs?: number;
  /** Most bytes kept of stdout and of stderr, each, unless the command gives its own. Default 100,000. */
  maxOutputBytes?: number;
  /** Most processes (and threads) at once. Default 256. */
  maxProcesses?: number;
  /** Most memory: of all processes together with control groups, else of each process (`RLIMIT_DATA`). Default 2 GiB. */
  maxMemoryBytes?: number;
  /** Largest file a command may write. Default 1 GiB. */
  maxFileBytes?: number;
  /** Protected names at any depth of the workspace. Default `.git` read-only; `.env*` and `.bridle` hidden. */
  protectedNames?: ProtectedNames;
  /** Most files and folders (outside `node_modules`) checked for protected names before and after a command. Default 200,000. */
  maxWorkspaceEntries?: number;
  /** The bwrap program. Default: `bwrap` on `PATH`. */
  bwrapPath?: string;
  /** The user's home folder, hidden inside (an empty one in its place). Default `os.homedir()`. */
  home?: string;
}

/** What an open bubblewrap sandbox enforces, for a startup line or a README table. */
export interface BubblewrapSandbox extends Sandbox {
  readonly kind: 'bubblewrap';
  /** How processes and memory are bounded: `cgroup` (all processes together) or `rlimit` (per process). */
  readonly bounds: 'cgroup' | 'rlimit';
}

const ALLOWED_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];

/**
 * Opens a bubblewrap sandbox over a workspace, after checking that it works here: Linux, `bwrap`
 * installed, user namespaces allowed (a probe command runs). Throws `SandboxUnavailableError` (a
 * `ConfigError`) naming what is missing and the fix: there is never a silent fallback to running
 * commands unsandboxed. Throws `ConfigError` for bad options.
 */
export async function openBubblewrapSandbox(options: BubblewrapSandboxOptions): Promise<BubblewrapSandbox> {
  if (typeof options !== 'object' || options === null || typeof options.root !== 'string') {
    throw new ConfigError('openBubblewrapSandbox needs { root }: the workspace folder commands may change.');
  }
  const where = 'openBubblewrapSandbox';
  const timeoutMs = integerOption('timeoutMs', options.timeoutMs, 60_000, { min: 1, where });
  const maxOutputBytes = integerOption('maxOutputBytes', options.maxOutputBytes, 100_000, { min: 1, where });
  const maxProcesses = integerOption('maxProcesses', options.maxProcesses, 256, { min: 8, where });
  const maxMemoryBytes = integerOption('maxMemoryBytes', options.maxMemoryBytes, 2 * 1024 ** 3, {
    min: 16 * 1024 ** 2,
    where,
  });
  const maxFileBytes = integerOption('maxFileBytes', options.maxFileBytes, 1024 ** 3, { min: 1024, where });
  const maxEntries = integerOption('maxWorkspaceEntries', options.maxWorkspaceEntries, 200_000, { min: 1, where });
  const names = options.protectedNames ?? DEFAULT_PROTECTED_NAMES;
  const passed = [...(options.env ?? [])];
  for (const name of passed) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new ConfigError(
        `${where}: "env" holds ${JSON.stringify(name)}, which is not an environment variable name.`,
      );
  }
  if (process.platform !== 'linux') {
    throw new SandboxUnavailableError(
      `The sandbox needs Linux with bubblewrap; this is ${process.platform}, and Bridle has no sandbox for it yet (macOS's sandbox-exec may come later). Run without --sandbox: commands then run only as named presets.`,
    );
  }
  const bwrap = findProgram(options.bwrapPath ?? 'bwrap');
  if (bwrap === undefined) {
    throw new SandboxUnavailableError(
      `The sandbox needs bubblewrap, and ${options.bwrapPath ?? '"bwrap"'} was not found${options.bwrapPath ? '' : ' on PATH'}. Install it (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap) or run without --sandbox.`,
    );
  }
  // bash runs inside the sandbox, where /tmp and the home folders are fresh: a bash found through a link in one
  // of them (a PATH entry under /tmp, say) is not there, so the sandbox starts the file the link points to.
  const found = findProgram('bash');
  const bash = found === undefined ? undefined : realpathSync(found);
  const shell = findProgram('sh');
  if (bash === undefined || shell === undefined) {
    throw new SandboxUnavailableError(
      'The sandbox runs commands with bash and sh, and one of them was not found on PATH: install bash.',
    );
  }
  const root = await workspaceRoot(options.root);
  const home = await realDirectory(options.home ?? homedir());
  const masks = await maskedFolders(home);
  refuseExposedFolders(root, home, masks);
  const baseEnv: Record<string, string> = {};
  for (const name of [...ALLOWED_ENV, ...passed]) {
    const value = process.env[name];
    if (value !== undefined) baseEnv[name] = value;
  }
  baseEnv.PATH = insidePath(baseEnv.PATH);
  baseEnv.HOME = home ?? '/tmp';
  baseEnv.TMPDIR = '/tmp';
  baseEnv.TERM = 'dumb';
  const parents = await findCgroupParents();
  if (parents) await removeStaleGroups(parents);
  const network = options.network ?? false;
  const bounds: 'cgroup' | 'rlimit' = parents?.pids ? 'cgroup' : 'rlimit';

  const run = async (command: SandboxCommand): Promise<SandboxResult> => {
    const argv = checkArgv(command.argv);
    const cwd = await commandDirectory(root, command.cwd);
    const runTimeout = integerOption('timeoutMs', command.timeoutMs, timeoutMs, { min: 1, where: 'sandbox.run' });
    const runOutput = integerOption('maxOutputBytes', command.maxOutputBytes, maxOutputBytes, {
      min: 1,
      where: 'sandbox.run',
    });
    const before = await findProtectedEntries(root, names, maxEntries);
    const cgroup = parents ? await startCgroupRun(parents, { maxProcesses, maxMemoryBytes }) : undefined;
    const args = bubblewrapArguments({
      root,
      cwd,
      masks,
      protectedEntries: before,
      network,
      bash,
      rlimits: {
        maxFileBytes,
        ...(parents?.pids ? {} : { maxProcesses }),
        ...(parents?.memory ? {} : { maxDataBytes: maxMemoryBytes }),
      },
      argv,
    });
    const outcome = await runSandboxed({
      bwrap,
      shell,
      args,
      env: { ...baseEnv, ...command.env },
      ...(cgroup ? { cgroup } : {}),
      timeoutMs: runTimeout,
      maxOutputBytes: runOutput,
      ...(command.signal ? { signal: command.signal } : {}),
    }).catch(async (error: unknown) => {
      await cgroup?.finish();
      throw error;
    });
    const removed = await removeCreatedEntries(root, new Set(allEntries(before)), names, maxEntries);
    const { processBoundHit, memoryBoundHit, ...result } = outcome;
    return {
      ...result,
      refusals: describeRefusals({
        outcome,
        network,
        timeoutMs: runTimeout,
        maxProcesses,
        maxMemoryBytes,
        maxFileBytes,
        removed,
      }),
    };
  };

  // A probe: bwrap may be installed and still refused (user namespaces off, a container without them).
  const probe = await run({ argv: ['true'], timeoutMs: 30_000 }).catch((error: unknown) => {
    throw new SandboxUnavailableError(`The sandbox could not start ${bwrap}: ${(error as Error).message}.`, {
      cause: error,
    });
  });
  if (probe.exitCode !== 0) {
    throw new SandboxUnavailableError(
      `bubblewrap (${bwrap}) cannot create a sandbox here: ${probe.stderr.trim().split('\n')[0] || `exit ${probe.exitCode ?? probe.signal}`}. It needs user namespaces: enable them (Debian: sysctl kernel.unprivileged_userns_clone=1; Ubuntu 24.04: an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0) or run without --sandbox.`,
    );
  }
  return { kind: 'bubblewrap', root, network, bounds, run };
}

async function workspaceRoot(root: string): Promise<string> {
  const real = await realDirectory(resolve(root));
  if (real === undefined)
    throw new ConfigError(`The sandbox's workspace ${root} is not a folder: give an existing directory.`);
  return real;
}

async function realDirectory(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    return (await lstat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Folders covered by an empty tmpfs: temporary folders, run-time sockets (a database's), homes, the user's configuration and data. */
async function maskedFolders(home: string | undefined): Promise<string[]> {
  const candidates = [
    '/tmp',
    '/var/tmp',
    '/run',
    '/home',
    '/root',
    home,
    process.env.XDG_CONFIG_HOME,
    process.env.XDG_DATA_HOME,
    process.env.XDG_STATE_HOME,
    process.env.XDG_CACHE_HOME,
    process.env.XDG_RUNTIME_DIR,
  ];
  const folders = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === undefined || !isAbsolute(candidate)) continue;
    const real = await realDirectory(candidate);
    if (real !== undefined && real !== '/') folders.add(real);
  }
  // Parents first: a folder inside another mask is created in that tmpfs, then covered by its own.
  return [...folders].sort((a, b) => a.split(sep).length - b.split(sep).length || a.localeCompare(b));
}

function refuseExposedFolders(root: string, home: string | undefined, masks: readonly string[]): void {
  if (root === '/') {
    throw new ConfigError(
      "The sandbox's workspace is the root of the file system: commands could change everything. Give the project folder instead.",
    );
  }
  for (const folder of [home, ...masks]) {
    if (folder === undefined || folder === '/tmp' || folder === '/var/tmp') continue;
    if (folder === root || isInside(root, folder)) {
      throw new ConfigError(
        `The sandbox's workspace ${root} holds ${folder} (${folder === home ? 'your home folder' : 'a folder the sandbox hides'}): commands could read and change it. Give the project folder instead.`,
      );
    }
  }
}

function isInside(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function checkArgv(argv: unknown): string[] {
  if (
    !Array.isArray(argv) ||
    argv.length === 0 ||
    argv.some((item) => typeof item !== 'string' || item.includes('\u0000'))
  ) {
    throw new ConfigError(
      'sandbox.run needs "argv": a non-empty array of strings without NUL bytes, e.g. ["npm", "test"].',
    );
  }
  if (argv[0] === '') throw new ConfigError('sandbox.run: "argv[0]" (the program) is empty.');
  return [...argv];
}

async function commandDirectory(root: string, cwd: string | undefined): Promise<string> {
  if (cwd === undefined || cwd === '' || cwd === '.') return root;
  if (typeof cwd !== 'string' || isAbsolute(cwd) || cwd.split(/[\\/]/).includes('..')) {
    throw new ConfigError(
      `sandbox.run: "cwd" ${JSON.stringify(cwd)} must be a relative path inside the workspace, without "..".`,
    );
  }
  const real = await realDirectory(join(root, cwd));
  if (real === undefined || (real !== root && !isInside(root, real))) {
    throw new ConfigError(`sandbox.run: "cwd" ${JSON.stringify(cwd)} is not a folder inside the workspace ${root}.`);
  }
  return real;
}

/** Removes the protected entries the command created (they did not exist before it), and names them. */
async function removeCreatedEntries(
  root: string,
  before: ReadonlySet<string>,
  names: ProtectedNames,
  maxEntries: number,
): Promise<string[]> {
  const after = await findProtectedEntries(root, names, maxEntries).catch(() => undefined);
  if (after === undefined) return [];
  const created = allEntries(after).filter((path) => !before.has(path));
  for (const path of created) await rm(path, { recursive: true, force: true });
  return created.map((path) => relative(root, path));
}

/** The system folders every Linux has programs in; the root file system is the host's, read-only. */
const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * `PATH` inside the sandbox: the caller's entries, then the system folders it lacks. A caller whose `PATH`
 * reaches programs only through a folder the sandbox replaces (under /tmp or a home folder) still finds them.
 */
function insidePath(path: string | undefined): string {
  const entries = (path ?? '').split(':').filter((entry) => entry !== '');
  return [...entries, ...SYSTEM_PATH.filter((entry) => !entries.includes(entry))].join(':');
}
