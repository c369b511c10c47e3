import type { BigIntStats, Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import type { DirectoryHandle } from './directory-handle';
import { errorCode, fsFailure } from './path-walk';
import type { EntryType } from './workspace-operations';

/** Entries of a verified directory, sorted by name (code unit order, stable across runs). */
export async function readSortedNames(directory: DirectoryHandle): Promise<Dirent[]> {
  const entries = await readdir(directory.path, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The entry type of lstat results. */
export function entryType(stats: BigIntStats): EntryType {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  return 'other';
}

/** lstat that says `undefined` for a missing entry and a clear error otherwise. */
export async function lstatOrUndefined(path: string, relative: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(path, { bigint: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw fsFailure(error, relative);
  }
}
