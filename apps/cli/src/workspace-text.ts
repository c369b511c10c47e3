import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';

/** Largest file shown in a diff, in bytes. */
const MAX_BYTES = 1_000_000;

/**
 * The text of `path` (relative to `root`, a real path) for display only, or undefined when it is missing, not a
 * regular file, outside the root (an absolute path, `..`, a link out), larger than 1 MB or not UTF-8. Synchronous on
 * purpose: a run's renderer reads a file just before a tool changes it. Never throws.
 */
export function workspaceText(root: string, path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || path.includes('\u0000')) return undefined;
  try {
    const full = join(root, path);
    const real = realpathSync(full);
    if (!real.startsWith(root + sep)) return undefined;
    const info = lstatSync(real);
    if (!info.isFile() || info.size > MAX_BYTES) return undefined;
    return new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(real));
  } catch {
    return undefined;
  }
}

/** A file change: the text before (undefined for a new file) and after. */
export interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
}

/**
 * The change an `edit_file` or `write_file` call would make to the workspace under `root`, or undefined for any
 * other call (or an edit whose `oldText` does not occur exactly once, which the tool will refuse).
 */
export function proposedChange(root: string, name: string, args: unknown): FileChange | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const { path, content, oldText, newText } = args as Record<string, unknown>;
  if (typeof path !== 'string') return undefined;
  if (name === 'write_file' && typeof content === 'string')
    return { path, before: workspaceText(root, path), after: content };
  if (name !== 'edit_file' || typeof oldText !== 'string' || typeof newText !== 'string' || oldText === '')
    return undefined;
  const before = workspaceText(root, path);
  if (before === undefined) return undefined;
  const at = before.indexOf(oldText);
  if (at === -1 || before.indexOf(oldText, at + 1) !== -1) return undefined;
  // Concatenation, not String.prototype.replace (which expands `$&` in newText), as the tool itself does.
  return { path, before, after: before.slice(0, at) + newText + before.slice(at + oldText.length) };
}
