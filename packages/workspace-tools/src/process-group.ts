import { readdir, readFile } from 'node:fs/promises';

/** Sends a signal to every process of a group. Never throws (a gone group is fine). */
export function signalGroup(groupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-groupId, signal);
  } catch {
    // ESRCH: nothing left to signal.
  }
}

/**
 * Whether any process of the group is still running. `kill(-pgid, 0)` also succeeds for zombies
 * (exited, waiting for their new parent to reap them), so on Linux a positive answer is confirmed
 * by looking for a member in /proc that is not a zombie.
 */
export async function groupAlive(groupId: number): Promise<boolean> {
  try {
    process.kill(-groupId, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === groupId && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/** Resolves once no process of the group runs, polling; gives up after `limitMs` (returns false). */
export async function waitForGroupExit(groupId: number, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (await groupAlive(groupId)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
