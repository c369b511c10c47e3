import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, describeValue } from '@bridle/protocol';
import { lock } from 'proper-lockfile';
import { displayText } from './display-text';

/** The answer remembered for one folder. */
export interface TrustDecision {
  /** Digest of the folder's `bridle.config.json` and `.mcp.json` when the user answered. */
  digest: string;
  /** `true`: trusted; `false`: the user declined (not asked again until a file changes). */
  trusted: boolean;
  /** When the user answered (ISO 8601). */
  decidedAt: string;
}

/** The contents of `trusted.json`: folders by real path. */
export interface TrustList {
  version: 1;
  folders: Record<string, TrustDecision>;
}

/** How long a writer waits for another one before giving up, in milliseconds. */
const LOCK_TIMEOUT_MS = 10_000;

function corrupt(path: string, problem: string, cause?: unknown): ConfigError {
  return new ConfigError(
    `The trusted folders list ${displayText(path)} ${problem}. Nothing in it is trusted until it is fixed: repair the JSON, or delete the file (each folder then asks again).`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Reads `trusted.json`. A missing file is an empty list. A file that cannot be read, is not JSON or
 * does not have the expected shape is a `ConfigError` naming it: it is never taken as "trust everything"
 * and never silently replaced.
 */
export function readTrustList(path: string): TrustList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, folders: {} };
    throw corrupt(path, `cannot be read (${(error as Error).message})`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `is not valid JSON (${(error as Error).message})`, error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(path, `must hold an object, not ${describeValue(value)}`);
  const record = value as Record<string, unknown>;
  if (record.version !== 1) throw corrupt(path, `has version ${describeValue(record.version)}, expected 1`);
  const folders = record.folders;
  if (typeof folders !== 'object' || folders === null || Array.isArray(folders))
    throw corrupt(path, '"folders" must be an object');
  const list: TrustList = { version: 1, folders: Object.create(null) as Record<string, TrustDecision> };
  for (const [folder, entry] of Object.entries(folders as Record<string, unknown>)) {
    const decision = entry as Partial<TrustDecision> | null;
    if (
      typeof decision !== 'object' ||
      decision === null ||
      typeof decision.digest !== 'string' ||
      typeof decision.trusted !== 'boolean' ||
      typeof decision.decidedAt !== 'string'
    ) {
      throw corrupt(path, `has a bad entry for ${displayText(folder)} (expected { digest, trusted, decidedAt })`);
    }
    list.folders[folder] = { digest: decision.digest, trusted: decision.trusted, decidedAt: decision.decidedAt };
  }
  return list;
}

/**
 * Changes `trusted.json` safely when several Bridle processes do it at once: under a lock
 * (`trusted.json.lock`, a folder made by `proper-lockfile`, kept fresh while held and taken over once it
 * is 10 s stale), it reads the current list, applies `change`, and replaces the file atomically (written
 * to a temporary file, synced, renamed). So no answer is lost and a reader never sees half a file.
 * Creates the folder (mode 700) and the file (mode 600). Rejects with `ConfigError` when the list is
 * corrupt (it is not overwritten) or the lock cannot be had within 10 s.
 */
export async function updateTrustList(path: string, change: (list: TrustList) => void): Promise<TrustList> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const release = await acquire(path);
  try {
    const list = readTrustList(path);
    change(list);
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(list, null, 2)}\n`);
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
    return list;
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
        // rename below is still atomic, so the file stays whole.
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
