import { randomBytes } from 'node:crypto';
import { type BigIntStats, constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import type { DirectoryHandle } from './directory-handle';
import { fsFailure } from './path-walk';

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes `data` to a new temporary file in `directory` (keeping `current`'s mode), syncs it and renames it
 * over `name`: a reader sees the old file or the new one, never half of one. The temporary is removed on failure.
 */
export async function writeAtomically(
  directory: DirectoryHandle,
  name: string,
  data: Buffer,
  current: BigIntStats | undefined,
): Promise<void> {
  const temporary = `.bridle-${randomBytes(8).toString('hex')}.tmp`;
  const temporaryPath = directory.entryPath(temporary);
  const handle = await open(temporaryPath, WRITE_FLAGS, 0o666).catch((error: unknown) => {
    throw fsFailure(error, directory.childRelative(name));
  });
  try {
    try {
      await handle.writeFile(data);
      if (current !== undefined) await handle.chmod(Number(current.mode & 0o7777n));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporaryPath, directory.entryPath(name));
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined);
    throw fsFailure(error, directory.childRelative(name));
  }
}
