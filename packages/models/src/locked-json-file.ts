import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { lock } from 'proper-lockfile';
import { displayText } from './display-text';

/** How long a writer waits for another one before giving up, in milliseconds. */
const LOCK_TIMEOUT_MS = 10_000;

/**
 * Changes a JSON file of the user's config folder safely when several Bridle processes do it at once: under a
 * lock (`<file>.lock`, a folder made by `proper-lockfile`, kept fresh while held and taken over once it is 10 s
 * stale), it reads the current value with `read` (which throws for a corrupt file: it is then never
 * overwritten), applies `change`, and replaces the file atomically (written to a temporary file, synced,
 * renamed), so no change is lost and a reader never sees half a file. Creates the folder (mode 700) and the file
 * (mode 600). Rejects with `ConfigError` when the lock cannot be had within 10 s.
 */
export async function updateLockedJsonFile<T>(
  path: string,
  read: (path: string) => T,
  change: (value: T) => void,
): Promise<T> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const release = await acquire(path);
  try {
    const value = read(path);
    change(value);
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    return value;
  } finally {
    await release();
  }
}

async function acquire(path: string): Promise<() => Promise<void>> {
  const lockfilePath = `${path}.lock`;
  try {
    return await lock(path, {
      lockfilePath,
      realpath: false,
      stale: LOCK_TIMEOUT_MS,
      // About 10 s of waiting in all, backing off from 5 ms to 100 ms.
      retries: { retries: 150, minTimeout: 5, maxTimeout: 100, factor: 1.3 },
      onCompromised: () => {
        // Another process took the lock over after it went stale (this one stalled for 10 s); the
        // rename is still atomic, so the file stays whole.
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new ConfigError(
      `Cannot update ${displayText(path)}: another bridle process has held ${displayText(lockfilePath)} for more than ${LOCK_TIMEOUT_MS / 1000}s. If no other bridle is running, delete that folder.`,
      { cause: error },
    );
  }
}
