import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';

/** Which names are protected inside the workspace, at any depth. See {@link findProtectedEntries}. */
export interface ProtectedNames {
  /** Readable, never writable (default `.git`): mounted read-only. */
  readOnly: readonly string[];
  /** Neither readable nor writable (default `.env*`, `.bridle`): covered by an empty read-only mount. */
  hidden: readonly string[];
}

/** The protected entries found under a workspace, as absolute paths. */
export interface ProtectedEntries {
  readOnly: string[];
  hiddenFiles: string[];
  hiddenDirectories: string[];
  /** Symlinks with a protected name (their targets inside the workspace are in the lists above). */
  links: string[];
  /** Those targets: protected while the command runs, never removed as if the command created them. */
  linkTargets: string[];
}

/** The default protected names: the repository (`.git`), secrets (`.env*`) and the harness's state (`.bridle`). */
export const DEFAULT_PROTECTED_NAMES: ProtectedNames = { readOnly: ['.git'], hidden: ['.env*', '.bridle'] };

/** Folders never walked: installed packages are not the project's own files (their size would make each run slow). */
const NOT_WALKED = new Set(['node_modules']);

/** Thrown when a workspace has more entries than the walk may visit. */
export class TooManyEntriesError extends Error {}

/**
 * Walks the workspace (never following symlinks, never into `node_modules`) and returns each entry whose
 * name matches a protected name (a name, or a prefix followed by `*`; case-insensitive). A matched folder
 * is not walked further. Throws {@link TooManyEntriesError} past `maxEntries` entries, because an entry
 * left unchecked would be left unprotected.
 */
export async function findProtectedEntries(
  root: string,
  names: ProtectedNames,
  maxEntries: number,
): Promise<ProtectedEntries> {
  const found: ProtectedEntries = { readOnly: [], hiddenFiles: [], hiddenDirectories: [], links: [], linkTargets: [] };
  const readOnly = matcher(names.readOnly);
  const hidden = matcher(names.hidden);
  let seen = 0;
  const pending = [root];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue; // gone or unreadable: the command cannot use it either
    }
    for (const entry of entries) {
      if (++seen > maxEntries) {
        throw new TooManyEntriesError(
          `The workspace ${root} has more than ${maxEntries} files and folders outside node_modules; the sandbox checks each for protected paths before a command. Use a smaller workspace folder.`,
        );
      }
      const path = join(directory, entry.name);
      if (entry.isSymbolicLink()) {
        // A protected name that links elsewhere in the workspace protects its target (`.git -> repo/`);
        // a target outside the workspace is read-only or hidden inside the sandbox already.
        if (readOnly(entry.name) || hidden(entry.name)) {
          found.links.push(path);
          await protectTarget(root, path, readOnly(entry.name), found);
        }
        continue;
      }
      if (readOnly(entry.name)) found.readOnly.push(path);
      else if (hidden(entry.name)) (entry.isDirectory() ? found.hiddenDirectories : found.hiddenFiles).push(path);
      else if (entry.isDirectory() && !NOT_WALKED.has(entry.name)) pending.push(path);
    }
  }
  return found;
}

async function protectTarget(root: string, link: string, isReadOnly: boolean, found: ProtectedEntries): Promise<void> {
  const target = await realpath(link).catch(() => undefined);
  if (target === undefined) return;
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return;
  const info = await stat(target).catch(() => undefined);
  if (info === undefined) return;
  found.linkTargets.push(target);
  if (isReadOnly) found.readOnly.push(target);
  else (info.isDirectory() ? found.hiddenDirectories : found.hiddenFiles).push(target);
}

/** The protected entries of a walk themselves (symlinks, not their targets), sorted. */
export function allEntries(entries: ProtectedEntries): string[] {
  const targets = new Set(entries.linkTargets);
  return [...entries.readOnly, ...entries.hiddenFiles, ...entries.hiddenDirectories]
    .filter((path) => !targets.has(path))
    .concat(entries.links)
    .sort();
}

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const lower = patterns.map((pattern) => pattern.toLowerCase());
  return (name) => {
    const subject = name.toLowerCase();
    return lower.some((pattern) =>
      pattern.endsWith('*') ? subject.startsWith(pattern.slice(0, -1)) : subject === pattern,
    );
  };
}
