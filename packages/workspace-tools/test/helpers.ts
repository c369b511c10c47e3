import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Tool, ToolContext } from '@bridle/protocol';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  while (created.length > 0) await rm(created.pop()!, { recursive: true, force: true });
});

/** A fresh temp directory holding `root/` (the workspace) and `outside/` (must never change). */
export async function tempTree(
  files: Record<string, string | Buffer> = {},
): Promise<{ base: string; root: string; outside: string }> {
  const base = await mkdtemp(join(tmpdir(), 'bridle-ws-'));
  created.push(base);
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'OUTSIDE SECRET');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return { base, root, outside };
}

/** Every entry under `dir` with its type and content (files) or target (symlinks), for "unchanged" checks. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (current: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(current)).sort()) {
      const path = join(current, name);
      const key = prefix + name;
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) result[key] = `symlink -> ${await readlink(path)}`;
      else if (stats.isDirectory()) {
        result[key] = 'dir';
        await walk(path, `${key}/`);
      } else result[key] = `file ${(stats.mode & 0o777).toString(8)} ${(await readFile(path)).toString('base64')}`;
    }
  };
  await walk(dir, '');
  return result;
}

/** A tool context with a fresh (or given) signal. */
export function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, callId: 'call-1', runId: 'run-1', idempotencyKey: 'run-1:call-1' };
}

/** Tools by name. */
export function byName(tools: Tool[]): Record<string, Tool> {
  return Object.fromEntries(tools.map((tool) => [tool.name, tool]));
}

/** Runs a tool and returns its thrown error (fails the test when it does not throw). */
export async function refusal(promise: unknown): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a refusal, but the call succeeded');
}

/** True while a process runs (a zombie, exited but not yet reaped, counts as gone). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (stat === '') return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}
