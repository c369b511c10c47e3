import { access, constants, mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where this process may create child control groups for the pids and memory controllers. */
export interface CgroupParents {
  version: 1 | 2;
  pids?: string;
  memory?: string;
}

/** One command's control groups: join them before starting bwrap, then {@link CgroupRun.finish}. */
export interface CgroupRun {
  /** The `cgroup.procs` files a process writes its own pid into to join. */
  procsFiles: string[];
  /** Kills every process in the groups (SIGKILL). Never throws. */
  killAll(): Promise<void>;
  /** Waits until the groups are empty, reads whether a bound was hit, removes the groups. Never throws. */
  finish(): Promise<{ processBoundHit: boolean; memoryBoundHit: boolean }>;
}

const PREFIX = 'bridle-sandbox-';
let counter = 0;

/**
 * Finds writable parents for the pids and memory controllers (cgroup v1 hierarchies, or a cgroup v2
 * folder whose `cgroup.subtree_control` already enables them), by creating and removing a probe group.
 * `undefined` when neither is usable: commands are then bounded by rlimits only. Also removes empty
 * groups left by processes that died. Never throws.
 */
export async function findCgroupParents(): Promise<CgroupParents | undefined> {
  if (process.platform !== 'linux') return undefined;
  const [self, mountInfo] = await Promise.all([
    readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
    readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
  ]);
  const mounts = mountInfo
    .split('\n')
    .map((line) => {
      const [left, right] = line.split(' - ');
      const fields = left?.split(' ') ?? [];
      const [type, , options] = right?.split(' ') ?? [];
      return { root: fields[3] ?? '', mountPoint: fields[4] ?? '', type, options: options?.split(',') ?? [] };
    })
    .filter((mount) => mount.type === 'cgroup' || mount.type === 'cgroup2');
  const v1: CgroupParents = { version: 1 };
  let v2Path: string | undefined;
  for (const line of self.split('\n')) {
    const [id, controllers, path] = [line.slice(0, line.indexOf(':')), ...splitRest(line)];
    if (path === undefined) continue;
    if (id === '0' && controllers === '') v2Path = path;
    for (const controller of ['pids', 'memory'] as const) {
      if (!controllers?.split(',').includes(controller)) continue;
      const mount = mounts.find((candidate) => candidate.type === 'cgroup' && candidate.options.includes(controller));
      const directory = mount && inside(mount.root, mount.mountPoint, path);
      if (directory && (await usable(directory))) v1[controller] = directory;
    }
  }
  if (v1.pids || v1.memory) return v1;
  const unified = mounts.find((mount) => mount.type === 'cgroup2');
  const directory = unified && v2Path !== undefined ? inside(unified.root, unified.mountPoint, v2Path) : undefined;
  if (directory === undefined) return undefined;
  const enabled = (await readFile(join(directory, 'cgroup.subtree_control'), 'utf8').catch(() => '')).split(/\s+/);
  if (!(await usable(directory))) return undefined;
  const v2: CgroupParents = { version: 2 };
  if (enabled.includes('pids')) v2.pids = directory;
  if (enabled.includes('memory')) v2.memory = directory;
  return v2.pids || v2.memory ? v2 : undefined;
}

/** Creates the groups of one command with its bounds. Throws when a group cannot be created. */
export async function startCgroupRun(
  parents: CgroupParents,
  bounds: { maxProcesses: number; maxMemoryBytes: number },
): Promise<CgroupRun> {
  const name = `${PREFIX}${process.pid}-${++counter}`;
  const groups: { directory: string; controller: 'pids' | 'memory' }[] = [];
  const create = async (parent: string, controller: 'pids' | 'memory') => {
    const existing = groups.find((group) => group.directory === join(parent, name));
    if (existing) return;
    await mkdir(join(parent, name));
    groups.push({ directory: join(parent, name), controller });
  };
  try {
    if (parents.pids) {
      await create(parents.pids, 'pids');
      await writeFile(join(parents.pids, name, 'pids.max'), String(bounds.maxProcesses));
    }
    if (parents.memory) {
      await create(parents.memory, 'memory');
      const file = parents.version === 1 ? 'memory.limit_in_bytes' : 'memory.max';
      await writeFile(join(parents.memory, name, file), String(bounds.maxMemoryBytes));
      if (parents.version === 2) await writeFile(join(parents.memory, name, 'memory.swap.max'), '0').catch(() => {});
    }
  } catch (error) {
    await Promise.all(groups.map((group) => rmdir(group.directory).catch(() => {})));
    throw error;
  }
  const directories = [...new Set(groups.map((group) => group.directory))];
  const killAll = async () => {
    for (const directory of directories) {
      const pids = await members(directory);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  };
  return {
    procsFiles: directories.map((directory) => join(directory, 'cgroup.procs')),
    killAll,
    async finish() {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const left = (await Promise.all(directories.map(members))).flat();
        if (left.length === 0 || Date.now() > deadline) break;
        await killAll();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const pidsEvents = parents.pids
        ? await readFile(join(parents.pids, name, 'pids.events'), 'utf8').catch(() => '')
        : '';
      const memoryEvents = parents.memory
        ? await readFile(
            join(parents.memory, name, parents.version === 1 ? 'memory.oom_control' : 'memory.events'),
            'utf8',
          ).catch(() => '')
        : '';
      await Promise.all(directories.map((directory) => rmdir(directory).catch(() => {})));
      return { processBoundHit: counted(pidsEvents, 'max'), memoryBoundHit: counted(memoryEvents, 'oom_kill') };
    },
  };
}

/** Removes empty groups this package left behind in a process that is gone. Never throws. */
export async function removeStaleGroups(parents: CgroupParents): Promise<void> {
  for (const parent of new Set([parents.pids, parents.memory])) {
    if (parent === undefined) continue;
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names) {
      const owner = /^bridle-sandbox-(\d+)-\d+$/.exec(name)?.[1];
      if (owner === undefined || alive(Number(owner))) continue;
      await rmdir(join(parent, name)).catch(() => {});
    }
  }
}

function splitRest(line: string): [string | undefined, string | undefined] {
  const first = line.indexOf(':');
  const second = line.indexOf(':', first + 1);
  if (first < 0 || second < 0) return [undefined, undefined];
  return [line.slice(first + 1, second), line.slice(second + 1)];
}

/** The folder of cgroup `path` under a mount of hierarchy root `root`; undefined when it is not below it. */
function inside(root: string, mountPoint: string, path: string): string | undefined {
  if (root === '/') return join(mountPoint, path);
  if (path === root || path.startsWith(`${root}/`)) return join(mountPoint, path.slice(root.length));
  return undefined;
}

async function usable(directory: string): Promise<boolean> {
  try {
    await access(directory, constants.W_OK);
    const probe = join(directory, `${PREFIX}${process.pid}-probe`);
    await mkdir(probe);
    await rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

async function members(directory: string): Promise<number[]> {
  const text = await readFile(join(directory, 'cgroup.procs'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

function counted(events: string, key: string): boolean {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(events);
  return match !== null && Number(match[1]) > 0;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
