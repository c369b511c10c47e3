import type { BigIntStats } from 'node:fs';
import { WorkspaceError } from './workspace-error';

/** Refuses anything but a regular file (a directory gets a hint to list it). */
export function assertRegularFile(stats: BigIntStats, relative: string): void {
  if (stats.isDirectory()) {
    throw new WorkspaceError(
      'not_a_file',
      `Refused: "${relative}" is a directory; use list_directory for directories.`,
    );
  }
  if (!stats.isFile()) throw new WorkspaceError('not_a_file', `Refused: "${relative}" is not a regular file.`);
}

/** Refuses a file that may not be replaced: a symlink, not a regular file, or one with other hard links. */
export function assertWritableFile(stats: BigIntStats, relative: string): void {
  if (stats.isSymbolicLink()) {
    throw new WorkspaceError('symlink', `Refused: "${relative}" is a symbolic link; symlinks are not written through.`);
  }
  assertRegularFile(stats, relative);
  if (stats.nlink > 1n) {
    throw new WorkspaceError(
      'hard_link',
      `Refused: "${relative}" has ${stats.nlink} hard links; writing it could change a file elsewhere. Remove the extra links first.`,
    );
  }
}
