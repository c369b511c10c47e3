import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { entryType, lstatOrUndefined, readSortedNames } from './directory-entries';
import { DirectoryHandle, sameFile } from './directory-handle';
import type { Jail } from './path-walk';
import { readEntry } from './read-entry';
import type { WalkEntry, WalkOptions, WalkSummary } from './workspace-operations';

type Visit = (entry: WalkEntry) => undefined | 'skip' | 'stop' | Promise<undefined | 'skip' | 'stop'>;

interface WalkContext {
  jail: Jail;
  isProtected: (segments: readonly string[]) => boolean;
  visit: Visit;
  options: WalkOptions;
  visited: number;
  truncated: boolean;
  stopped: boolean;
}

/**
 * Depth-first walk under a verified directory, in name order. Subdirectories are opened through
 * their verified parent with O_NOFOLLOW and checked against the lstat that classified them, so a
 * directory swapped for a symlink mid-walk is skipped, never followed. Protected paths are skipped.
 */
export async function walkDirectory(
  jail: Jail,
  start: DirectoryHandle,
  isProtected: (segments: readonly string[]) => boolean,
  visit: Visit,
  options: WalkOptions,
): Promise<WalkSummary> {
  const state: WalkContext = { jail, isProtected, visit, options, visited: 0, truncated: false, stopped: false };
  const segments = start.relative === '' ? [] : start.relative.split('/');
  await walkInto(state, start, segments, 0);
  return { visited: state.visited, truncated: state.truncated };
}

async function walkInto(
  state: WalkContext,
  directory: DirectoryHandle,
  segments: string[],
  depth: number,
): Promise<void> {
  const { options } = state;
  for (const dirent of await readSortedNames(directory)) {
    if (state.stopped) return;
    const childSegments = [...segments, dirent.name];
    if (state.isProtected(childSegments)) continue;
    if (state.visited >= options.maxEntries) {
      state.truncated = true;
      state.stopped = true;
      return;
    }
    state.visited++;
    const relative = childSegments.join('/');
    const stats = await lstatOrUndefined(directory.entryPath(dirent.name), relative);
    if (stats === undefined) continue;
    const type = entryType(stats);
    const decision = await state.visit({
      path: relative,
      type,
      read: (maxBytes) => readEntry(directory, dirent.name, maxBytes, stats),
    });
    if (decision === 'stop') {
      state.stopped = true;
      return;
    }
    if (type !== 'directory' || decision === 'skip') continue;
    if (depth + 1 > options.maxDepth) {
      state.truncated = true;
      continue;
    }
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(
        directory.entryPath(dirent.name),
        constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
      );
    } catch {
      continue; // Replaced (by a symlink or anything else) since it was listed: not ours to follow.
    }
    const opened = await handle.stat({ bigint: true });
    const child = new DirectoryHandle(
      handle,
      `${directory.absolute}/${dirent.name}`,
      relative,
      state.jail.viaDescriptor,
      opened,
    );
    try {
      if (sameFile(opened, stats)) await walkInto(state, child, childSegments, depth + 1);
    } finally {
      await child.close();
    }
  }
}
