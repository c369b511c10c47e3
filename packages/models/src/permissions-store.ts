import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { displayText } from './display-text';
import { readFolderListFile } from './folder-list-file';
import { updateLockedJsonFile } from './locked-json-file';
import { parsePermissionRule } from './permission-rule';

/** One remembered rule of a folder. */
export interface RememberedRule {
  /** As written: `edit_file(src/**)`, `run_command(test)` (see `parsePermissionRule`). */
  rule: string;
  /** When the user answered (ISO 8601). */
  addedAt: string;
}

/** The contents of `permissions.json`: each project folder's rules, by real path. */
export interface PermissionList {
  version: 1;
  folders: Record<string, { rules: RememberedRule[] }>;
}

/** `permissions.json` in the user's config folder. */
export function permissionsPath(configDir: string): string {
  return join(configDir, 'permissions.json');
}

function corrupt(path: string, problem: string, cause?: unknown): ConfigError {
  return new ConfigError(
    `The remembered permissions file ${displayText(path)} ${problem}. No rule in it applies until it is fixed (every call asks): repair the JSON, or delete the file (its rules are then forgotten).`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Reads `permissions.json`. A missing file has no rules. A file that cannot be read, is not JSON, or holds
 * anything but `{ version: 1, folders: { <folder>: { rules: [{ rule, addedAt }] } } }` with valid rules is a
 * `ConfigError` naming it and the fix: never read as "allow", never silently replaced.
 */
export function readPermissionList(path: string): PermissionList {
  const entries = readFolderListFile(path, (problem, cause) => corrupt(path, problem, cause));
  if (entries === undefined) return { version: 1, folders: {} };
  const list: PermissionList = { version: 1, folders: Object.create(null) as PermissionList['folders'] };
  for (const [folder, entry] of entries) {
    const rules = (entry as { rules?: unknown } | null)?.rules;
    if (!Array.isArray(rules))
      throw corrupt(path, `has a bad entry for ${displayText(folder)} (expected { rules: [...] })`);
    list.folders[folder] = {
      rules: rules.map((item: unknown) => {
        const remembered = item as Partial<RememberedRule> | null;
        if (typeof remembered?.rule !== 'string' || typeof remembered.addedAt !== 'string')
          throw corrupt(path, `has a bad rule for ${displayText(folder)} (expected { rule, addedAt })`);
        try {
          parsePermissionRule(remembered.rule);
        } catch (error) {
          throw corrupt(path, `has a bad rule for ${displayText(folder)}: ${(error as Error).message}`, error);
        }
        return { rule: remembered.rule, addedAt: remembered.addedAt };
      }),
    };
  }
  return list;
}

/**
 * Changes `permissions.json` under a lock and replaces it atomically (as `trusted.json`): no rule is lost when
 * several Bridle processes remember at once. Rejects with `ConfigError` when the file is corrupt (it is not
 * overwritten) or the lock cannot be had within 10 s.
 */
export async function updatePermissionList(
  path: string,
  change: (list: PermissionList) => void,
): Promise<PermissionList> {
  return await updateLockedJsonFile(path, readPermissionList, change);
}
