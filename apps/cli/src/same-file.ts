import { statSync } from 'node:fs';

/**
 * Whether two paths name the same file: compared by identity (device and inode, after following
 * symlinks), so a symlink, a hard link, `/proc/self/cwd/...` or any other spelling of one file is caught.
 * A path that does not exist (yet) or cannot be looked up is never the same as another.
 */
export function isSameFile(first: string, second: string): boolean {
  const a = identity(first);
  const b = identity(second);
  return a !== undefined && a === b;
}

function identity(path: string): string | undefined {
  try {
    const info = statSync(path, { bigint: true });
    return `${info.dev}:${info.ino}`;
  } catch {
    // Missing, or not reachable (ENOTDIR, EACCES): the caller reports what opening it says.
    return undefined;
  }
}
