import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { displayText } from './display-text';

/** Largest `.env`, `bridle.config.json` or `.mcp.json` read from a folder, in bytes (1 MiB). */
export const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

/** A file of a folder, read once: its bytes are what is shown, digested and used. */
export interface ProjectFile {
  /** The path inside the folder, e.g. `/repo/.env`. */
  path: string;
  /** The file's bytes as read. */
  bytes: Buffer;
}

/** A folder's file that is there but was not read, and why (for a warning). */
export interface RefusedProjectFile {
  path: string;
  refused: string;
}

/**
 * Reads `name` in `folder` once, for a loader that treats it as the folder's (untrusted) words.
 * Missing: `undefined`. Refused (returned, not thrown, so the caller warns and goes on): a symlink
 * that leads outside the folder, anything but a regular file (a FIFO would block, a device never
 * ends), a file over {@link MAX_PROJECT_FILE_BYTES}. A file that exists but cannot be read is a
 * `ConfigError` naming it. Never follows a symlink swapped in after the check (the last component is
 * opened with `O_NOFOLLOW`) and never blocks on a FIFO (`O_NONBLOCK`).
 */
export function readProjectFile(folder: string, name: string): ProjectFile | RefusedProjectFile | undefined {
  const path = join(folder, name);
  let target = path;
  try {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (link === undefined) return undefined;
    if (link.isSymbolicLink()) {
      const real = realpathSync(path);
      const root = realpathSync(folder);
      const inside = relative(root, real);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
        return {
          path,
          refused: `it is a symlink to ${displayText(real)}, outside the folder ${displayText(root)}`,
        };
      }
      target = real;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A dangling symlink reads as missing.
    if (code === 'ENOENT') return undefined;
    throw cannotRead(path, error);
  }
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return { path, refused: 'it was replaced by a symlink while it was being read' };
    throw cannotRead(path, error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { path, refused: 'it is not a regular file' };
    if (info.size > MAX_PROJECT_FILE_BYTES) {
      return { path, refused: `it is ${info.size} bytes, more than the ${MAX_PROJECT_FILE_BYTES} allowed` };
    }
    const bytes = Buffer.alloc(info.size);
    let read = 0;
    while (read < bytes.length) {
      const count = readSync(fd, bytes, read, bytes.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return { path, bytes: bytes.subarray(0, read) };
  } catch (error) {
    throw cannotRead(path, error);
  } finally {
    closeSync(fd);
  }
}

function cannotRead(path: string, error: unknown): ConfigError {
  return new ConfigError(
    `Cannot read ${displayText(path)}: ${(error as Error).message}. Fix its permissions or remove it.`,
    { cause: error },
  );
}
