import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Longest readable part of a project key, in characters (the hash keeps keys unique). */
const READABLE_CHARS = 48;

/**
 * The user's Bridle data folder: `$XDG_DATA_HOME/bridle` when `XDG_DATA_HOME` is an absolute path (the XDG
 * rule: a relative one is ignored), else `~/.local/share/bridle`. Read from the shell's environment, never
 * from a folder's `.env`.
 */
export function bridleDataDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, 'bridle');
  const home = env.HOME?.trim() || homedir();
  return join(home, '.local', 'share', 'bridle');
}

/**
 * The key of a project folder in the data folder: the end of its canonical path made readable (letters,
 * digits, `.`, `_` and `-`; at most 48 characters) and 16 hex digits of its SHA-256, e.g.
 * `home-ada-src-app-1f2e3d4c5b6a7988`. The same folder reached through a symlink gets the same key.
 */
export function projectKey(folder: string): string {
  const canonical = canonicalFolder(folder);
  const readable = canonical
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(-READABLE_CHARS)
    .replace(/^[-.]+|-+$/g, '');
  const hash = createHash('sha256').update(canonical).digest('hex').slice(0, 16);
  return readable === '' ? hash : `${readable}-${hash}`;
}

/** A folder's real path (symlinks resolved), in Unicode NFC; the path as given when it cannot be resolved. */
export function canonicalFolder(folder: string): string {
  let real = folder;
  try {
    real = realpathSync.native(folder);
  } catch {
    // A folder that does not exist cannot hold a project: its path as given still keys it.
  }
  return real.normalize('NFC');
}

/**
 * The CLI's default store for a project folder: `sqlite:<data>/bridle/projects/<key>/bridle.db`, outside
 * the folder (a cloned repository cannot plant runs or sessions in it).
 */
export function projectStoreUrl(folder: string, env: Record<string, string | undefined>): string {
  return `sqlite:${join(bridleDataDir(env), 'projects', projectKey(folder), 'bridle.db')}`;
}
