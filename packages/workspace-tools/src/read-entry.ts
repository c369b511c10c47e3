import { type BigIntStats, constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { type DirectoryHandle, sameFile } from './directory-handle';
import { changed, errorCode, fsFailure } from './path-walk';
import { WorkspaceError } from './workspace-error';

// O_NONBLOCK: opening a FIFO swapped in after the check must not hang the tool.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads the regular file `name` inside a verified directory, at most `maxBytes`. When `expected` is
 * given, what was opened must be that very object (dev, ino). Never follows a symlink; refuses a
 * file with more than one hard link (`hard_link`).
 */
export async function readEntry(
  directory: DirectoryHandle,
  name: string,
  maxBytes: number,
  expected?: BigIntStats,
): Promise<Buffer> {
  const relative = directory.childRelative(name);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(directory.entryPath(name), READ_FLAGS);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw changed(`"${relative}"`, 'became a symbolic link');
    throw fsFailure(error, relative);
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (expected !== undefined && !sameFile(stats, expected)) throw changed(`"${relative}"`, 'was replaced');
    if (!stats.isFile()) {
      throw new WorkspaceError('not_a_file', `Refused: "${relative}" is not a regular file.`);
    }
    // A hard link may be a file outside the workspace linked in (the path jail cannot see where the
    // other names are): refused like a write to it is.
    if (stats.nlink > 1n) {
      throw new WorkspaceError(
        'hard_link',
        `Refused: "${relative}" has ${stats.nlink} hard links; it may be a file outside the workspace, so it is not read. Copy its content to a new file first if you need it.`,
      );
    }
    if (stats.size > BigInt(maxBytes)) throw tooLarge(relative, Number(stats.size), maxBytes);
    // Never trust the size: the file may grow while being read. Read at most one byte past the cap.
    const buffer = Buffer.allocUnsafe(Math.min(Number(stats.size), maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const wanted = buffer.length - length;
      const { bytesRead } = await handle.read(buffer, length, wanted, length);
      length += bytesRead;
      // A regular file reads short only at its end: no second call to hear the end again.
      if (bytesRead < wanted) break;
    }
    if (length > maxBytes) throw tooLarge(relative, length, maxBytes);
    return buffer.subarray(0, length);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tooLarge(relative: string, size: number, maxBytes: number): WorkspaceError {
  return new WorkspaceError(
    'too_large',
    `Refused: "${relative}" is ${size} bytes or more, above the read limit of ${maxBytes} bytes. Use search_text to find the part you need.`,
  );
}
