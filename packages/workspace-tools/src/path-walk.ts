import { type BigIntStats, constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '@bridle/protocol/internal';
import { DirectoryHandle, type FileIdentity, sameFile } from './directory-handle';
import { WorkspaceError } from './workspace-error';

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Where the jail is and how it opens things. */
export interface Jail {
  /** Real path of the root, resolved once. */
  root: string;
  rootIdentity: FileIdentity;
  /** Reach entries through `/proc/self/fd` (race-free) rather than absolute paths. */
  viaDescriptor: boolean;
}

/** The result of the check phase: one lstat per segment, `undefined` from the first missing one on. */
export interface CheckedPath {
  segments: readonly string[];
  stats: (BigIntStats | undefined)[];
}

/**
 * Check phase: lstat every component from the root down. Refuses a symlink in any component
 * (dangling ones too) and a non-directory where a directory is needed. Missing components are fine
 * here; callers decide whether the path must exist.
 */
export async function checkPath(jail: Jail, segments: readonly string[]): Promise<CheckedPath> {
  const stats: (BigIntStats | undefined)[] = [];
  let absolute = jail.root;
  for (let index = 0; index < segments.length; index++) {
    absolute = join(absolute, segments[index]!);
    const shown = segments.slice(0, index + 1).join('/');
    let stat: BigIntStats;
    try {
      stat = await lstat(absolute, { bigint: true });
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        while (stats.length < segments.length) stats.push(undefined);
        return { segments, stats };
      }
      throw fsFailure(error, shown);
    }
    if (stat.isSymbolicLink()) {
      throw new WorkspaceError(
        'symlink',
        `Refused: "${shown}" is a symbolic link. Symlinks are not followed inside the workspace; use the real path.`,
      );
    }
    if (index < segments.length - 1 && !stat.isDirectory()) {
      throw new WorkspaceError('not_a_directory', `Refused: "${shown}" is not a directory.`);
    }
    stats.push(stat);
  }
  return { segments, stats };
}

/**
 * Use phase: opens the root and then the first `count` checked segments one at a time, each with
 * O_NOFOLLOW relative to its verified parent, and verifies (dev, ino) against the check. With
 * `create`, missing directories are created one by one inside the verified parent.
 */
export async function openDirectoryChain(
  jail: Jail,
  checked: CheckedPath,
  count: number,
  options: { create?: boolean } = {},
): Promise<DirectoryHandle> {
  const rootHandle = await open(jail.root, DIRECTORY_FLAGS);
  const rootStats = await rootHandle.stat({ bigint: true });
  let current = new DirectoryHandle(rootHandle, jail.root, '', jail.viaDescriptor, rootStats);
  try {
    if (!sameFile(rootStats, jail.rootIdentity)) {
      throw changed('the workspace root', 'was replaced');
    }
    for (let index = 0; index < count; index++) {
      const name = checked.segments[index]!;
      const relative = current.childRelative(name);
      const expected = checked.stats[index];
      const next = await openChild(jail, current, name, relative, expected, options.create === true);
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

async function openChild(
  jail: Jail,
  parent: DirectoryHandle,
  name: string,
  relative: string,
  expected: BigIntStats | undefined,
  create: boolean,
): Promise<DirectoryHandle> {
  const path = parent.entryPath(name);
  const absolute = join(parent.absolute, name);
  if (expected === undefined) {
    if (!create) throw new WorkspaceError('not_found', `Refused: directory "${relative}" does not exist.`);
    try {
      await mkdir(path, { mode: 0o777 });
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw fsFailure(error, relative);
      // Someone else created it meanwhile: fine if it is a real directory, which the open below checks.
    }
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, DIRECTORY_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') {
      throw changed(`"${relative}"`, 'is no longer the directory that was checked (a symlink or other object now)');
    }
    throw fsFailure(error, relative);
  }
  const stats = await handle.stat({ bigint: true });
  if ((expected !== undefined && !sameFile(stats, expected)) || !stats.isDirectory()) {
    await handle.close();
    throw changed(`"${relative}"`, 'was replaced after it was checked');
  }
  return new DirectoryHandle(handle, absolute, relative, jail.viaDescriptor, stats);
}

/** An error for an object that changed between check and use: a race, possibly an attack. */
export function changed(what: string, how: string): WorkspaceError {
  return new WorkspaceError(
    'changed_during_operation',
    `Refused: ${what} ${how} while the operation ran; nothing was done. Retry if the change was expected.`,
  );
}

/** The `code` of a Node system error, if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Turns an unexpected file system error into a workspace error naming the path. */
export function fsFailure(error: unknown, relative: string): WorkspaceError {
  const code = errorCode(error);
  if (code === 'ENOENT') return new WorkspaceError('not_found', `Refused: "${relative}" does not exist.`);
  if (code === 'ENOTDIR')
    return new WorkspaceError('not_a_directory', `Refused: a parent of "${relative}" is not a directory.`);
  if (code === 'ENAMETOOLONG')
    return new WorkspaceError('invalid_path', `Refused: "${relative}" has a name that is too long.`);
  const detail = errorMessage(error);
  return new WorkspaceError('io_error', `File system error on "${relative}": ${detail}`, { cause: error });
}
