import { type BigIntStats, constants, type Dirent } from 'node:fs';
import { open } from 'node:fs/promises';
import { entryType, lstatOrUndefined, readSortedNames } from './directory-entries';
import { DirectoryHandle, sameFile } from './directory-handle';
import { type IgnoreRules, MAX_IGNORE_FILE_BYTES } from './ignore-rules';
import type { Jail } from './path-walk';
import { readEntry } from './read-entry';
import { WorkspaceError } from './workspace-error';
import type { EntryType, WalkEntry, WalkOptions, WalkStop, WalkSummary } from './workspace-operations';

type Visit = (entry: WalkEntry) => undefined | 'skip' | 'stop' | Promise<undefined | 'skip' | 'stop'>;

interface WalkContext {
  jail: Jail;
  isProtected: (segments: readonly string[]) => boolean;
  visit: Visit;
  options: WalkOptions;
  visited: number;
  stopped: boolean;
  stop: WalkStop | undefined;
  deadline: number;
  lastYield: number;
}

/** Reads `.gitignore` in a verified directory; `undefined` when absent, unreadable, linked or too large. */
export async function readIgnoreFile(directory: DirectoryHandle, name = '.gitignore'): Promise<string | undefined> {
  try {
    return (await readEntry(directory, name, MAX_IGNORE_FILE_BYTES)).toString('utf8');
  } catch {
    return undefined; // git does not follow a symlinked .gitignore either
  }
}

/** The longest stretch of synchronous work between two yields to the event loop, in milliseconds. */
const YIELD_EVERY_MS = 4;

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
  rules?: IgnoreRules,
): Promise<WalkSummary> {
  const now = performance.now();
  const state: WalkContext = {
    jail,
    isProtected,
    visit,
    options,
    visited: 0,
    stopped: false,
    stop: undefined,
    deadline: now + (options.timeBudgetMs ?? Number.POSITIVE_INFINITY),
    lastYield: now,
  };
  const segments = start.relative === '' ? [] : start.relative.split('/');
  await walkInto(state, start, segments, 0, rules);
  return state.stop === undefined
    ? { visited: state.visited, truncated: false }
    : { visited: state.visited, truncated: true, stop: state.stop };
}

/**
 * Called before each entry: throws once the signal aborted, stops at the time budget, and yields to the
 * event loop every few milliseconds, so no walk holds it (timers, I/O, other runs) for long.
 */
async function checkpoint(state: WalkContext, relative: string): Promise<boolean> {
  if (state.options.signal?.aborted) {
    throw new WorkspaceError('aborted', `The walk was aborted at "${relative}".`);
  }
  const now = performance.now();
  if (now >= state.deadline) {
    stopAt(state, 'time', relative);
    return false;
  }
  if (now - state.lastYield >= YIELD_EVERY_MS) {
    await new Promise((resolve) => setImmediate(resolve));
    state.lastYield = performance.now();
    if (state.options.signal?.aborted) {
      throw new WorkspaceError('aborted', `The walk was aborted at "${relative}".`);
    }
  }
  return true;
}

function stopAt(state: WalkContext, reason: WalkStop['reason'], at: string): void {
  if (reason !== 'depth') state.stopped = true;
  // The first bound hit is the one reported; a depth cut is replaced by a stop that ended the walk.
  if (state.stop === undefined || (state.stop.reason === 'depth' && reason !== 'depth')) state.stop = { reason, at };
}

async function walkInto(
  state: WalkContext,
  directory: DirectoryHandle,
  segments: string[],
  depth: number,
  inherited: IgnoreRules | undefined,
): Promise<void> {
  const names = await readSortedNames(directory);
  let rules = inherited;
  if (rules !== undefined && names.some((dirent) => dirent.name === '.gitignore' && dirent.isFile())) {
    rules = rules.with(segments, await readIgnoreFile(directory));
  }
  // Reads the visitor started without awaiting go through this directory's descriptor: they must settle
  // before the caller closes it (a closed descriptor number may be reused by another directory).
  const reads = new Set<Promise<Buffer>>();
  try {
    await visitEntries(state, directory, segments, depth, rules, names, reads);
  } finally {
    await Promise.allSettled(reads);
  }
}

async function visitEntries(
  state: WalkContext,
  directory: DirectoryHandle,
  segments: string[],
  depth: number,
  rules: IgnoreRules | undefined,
  names: Dirent[],
  reads: Set<Promise<Buffer>>,
): Promise<void> {
  const { options } = state;
  for (const dirent of names) {
    if (state.stopped) return;
    const childSegments = [...segments, dirent.name];
    const relative = childSegments.join('/');
    if (!(await checkpoint(state, relative))) return;
    if (state.isProtected(childSegments)) continue;
    if (rules?.ignores(childSegments, dirent.isDirectory())) continue;
    if (state.visited >= options.maxEntries) {
      stopAt(state, 'entries', relative);
      return;
    }
    state.visited++;
    // readdir's type is enough for files and symlinks (a file is read with O_NOFOLLOW and fstat-checked,
    // so a swap is still caught): one system call less per file. Directories need lstat for the identity
    // check before they are entered; an unknown type (some file systems) is looked up.
    let stats: BigIntStats | undefined;
    let type: EntryType;
    if (dirent.isFile()) type = 'file';
    else if (dirent.isSymbolicLink()) type = 'symlink';
    else {
      stats = await lstatOrUndefined(directory.entryPath(dirent.name), relative);
      if (stats === undefined) continue;
      type = entryType(stats);
    }
    const decision = await state.visit({
      path: relative,
      type,
      read: (maxBytes) => {
        const read = readEntry(directory, dirent.name, maxBytes, stats);
        reads.add(read);
        const settled = () => reads.delete(read);
        read.then(settled, settled);
        return read;
      },
    });
    if (decision === 'stop') {
      state.stopped = true;
      return;
    }
    if (type !== 'directory' || decision === 'skip' || stats === undefined) continue;
    if (depth + 1 > options.maxDepth) {
      stopAt(state, 'depth', relative);
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
      if (sameFile(opened, stats)) await walkInto(state, child, childSegments, depth + 1, rules);
    } finally {
      await child.close();
    }
  }
}
