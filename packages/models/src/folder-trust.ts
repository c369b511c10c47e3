import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { displayText } from './display-text';
import { trustListPath } from './load-project-config';
import { describeProjectFiles, projectFilePaths, readProjectFiles } from './project-files';
import { readTrustList, type TrustDecision, updateTrustList } from './trust-store';

/** One remembered folder, as `bridle trust --list` shows it. */
export interface TrustedFolder extends TrustDecision {
  folder: string;
}

/** What {@link trustFolder} recorded. */
export interface TrustFolderResult {
  folder: string;
  files: string[];
  /** What the files do (as the trust prompt shows it). */
  lines: string[];
  digest: string;
}

function realFolder(folder: string): string {
  try {
    return realpathSync(resolve(folder));
  } catch (error) {
    throw new ConfigError(`${displayText(folder)} is not a folder that exists: ${(error as Error).message}.`, {
      cause: error,
    });
  }
}

/**
 * Trusts a folder's current `bridle.config.json` and `.mcp.json` (the user asked for it by name:
 * `bridle trust DIR`). Remembered by the folder's real path and the files' digest: an edit asks again.
 * Returns undefined when the folder has neither file (nothing to trust). Throws `ConfigError` for an
 * invalid config file (it is never trusted in a state that cannot apply) or a corrupt `trusted.json`.
 */
export async function trustFolder(folder: string, configDir: string): Promise<TrustFolderResult | undefined> {
  const files = readProjectFiles(realFolder(folder));
  if (files === undefined || projectFilePaths(files).length === 0) return undefined;
  const lines = describeProjectFiles(files);
  await updateTrustList(trustListPath(configDir), (list) => {
    list.folders[files.folder] = { digest: files.digest, trusted: true, decidedAt: new Date().toISOString() };
  });
  return { folder: files.folder, files: projectFilePaths(files), lines, digest: files.digest };
}

/**
 * Forgets a folder (trusted or declined): its files are ignored again until the user trusts it.
 * Matches the folder's real path, or the path as given when it no longer exists. Resolves with whether
 * an entry was removed.
 */
export async function revokeFolder(folder: string, configDir: string): Promise<boolean> {
  let key: string;
  try {
    key = realpathSync(resolve(folder));
  } catch {
    key = resolve(folder);
  }
  let removed = false;
  await updateTrustList(trustListPath(configDir), (list) => {
    removed = Object.hasOwn(list.folders, key);
    delete list.folders[key];
  });
  return removed;
}

/** The remembered folders, sorted by path. Throws `ConfigError` for a corrupt `trusted.json`. */
export function listTrustedFolders(configDir: string): TrustedFolder[] {
  const list = readTrustList(trustListPath(configDir));
  return Object.entries(list.folders)
    .map(([folder, decision]) => ({ folder, ...decision }))
    .sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}
