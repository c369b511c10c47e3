import { ConfigError } from '@bridle/protocol';
import { displayText } from './display-text';
import { readFolderListFile } from './folder-list-file';
import { updateLockedJsonFile } from './locked-json-file';

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
  const entries = readFolderListFile(path, (problem, cause) => corrupt(path, problem, cause));
  if (entries === undefined) return { version: 1, folders: {} };
  const list: TrustList = { version: 1, folders: Object.create(null) as Record<string, TrustDecision> };
  for (const [folder, entry] of entries) {
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
 * Changes `trusted.json` safely when several Bridle processes do it at once (see {@link updateLockedJsonFile}):
 * reads the current list under a lock, applies `change`, and replaces the file atomically, so no answer is lost
 * and a reader never sees half a file. Rejects with `ConfigError` when the list is corrupt (it is not
 * overwritten) or the lock cannot be had within 10 s.
 */
export async function updateTrustList(path: string, change: (list: TrustList) => void): Promise<TrustList> {
  return await updateLockedJsonFile(path, readTrustList, change);
}
