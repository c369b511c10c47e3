import { describeValue } from '@bridle/protocol';
import { WorkspaceError } from './workspace-error';

/** Longest accepted relative path, in characters. Real paths inside a repository stay far below. */
export const MAX_PATH_LENGTH = 4096;
/** Most directory levels in an accepted path. Real repositories stay far below; walks stop at 64. */
export const MAX_PATH_DEPTH = 256;
/** Longest accepted name (one segment), in UTF-8 bytes: NAME_MAX on Linux and macOS. */
export const MAX_NAME_BYTES = 255;

// C0/C1 controls, and invisible code points that some file systems ignore (the `.g\u200cit` trick) or
// that make a path display as something else (bidi overrides). U+2060-U+206F covers HFS+'s ignorable
// U+206A-U+206F too (git's list in `is_hfs_dotgit`): on HFS+ `.g\u206ait` is `.git`.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/u;

/** How {@link parsePath} treats the workspace root itself. */
export interface ParsePathOptions {
  /** Accept `"."`, `""` and `undefined` as the root (listing and searching). Default false. */
  allowRoot?: boolean;
  /** What the value is called in messages. Default `"path"`. */
  label?: string;
}

/**
 * Checks a model-supplied relative path and returns its segments (empty for the root).
 * Pure: touches no file system. Refuses NUL and control characters, backslashes, absolute paths,
 * drive letters, `..` segments anywhere, names over 255 bytes, more than {@link MAX_PATH_DEPTH} levels, and
 * the root unless `allowRoot`. `.` and empty segments are dropped.
 */
export function parsePath(value: unknown, options: ParsePathOptions = {}): string[] {
  const label = options.label ?? 'path';
  if (value === undefined && options.allowRoot) return [];
  if (typeof value !== 'string') {
    throw refuse(`${label} must be a string relative to the workspace root, got ${describeValue(value)}`);
  }
  if (value.length > MAX_PATH_LENGTH) {
    throw refuse(`${label} is ${value.length} characters long; the limit is ${MAX_PATH_LENGTH}`);
  }
  if (value.includes('\u0000')) throw refuse(`${label} ${JSON.stringify(value)} contains a NUL byte`);
  if (FORBIDDEN_CHARACTERS.test(value)) {
    throw refuse(`${label} ${JSON.stringify(value)} contains a control or invisible character; use plain names`);
  }
  if (value.includes('\\')) {
    throw refuse(`${label} ${JSON.stringify(value)} contains a backslash; separate directories with "/"`);
  }
  if (value.startsWith('/') || value.startsWith('~') || /^[a-zA-Z]:/.test(value)) {
    throw refuse(`${label} ${JSON.stringify(value)} is absolute; give a path relative to the workspace root`);
  }
  const segments: string[] = [];
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      throw refuse(`${label} ${JSON.stringify(value)} contains "..": paths must stay inside the workspace`);
    }
    // Checked here, before anything runs: a write would otherwise create the parents, then fail.
    if (Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES) {
      throw refuse(
        `${label} has a name of ${Buffer.byteLength(segment, 'utf8')} bytes (${JSON.stringify(segment.slice(0, 40))}...); names are limited to ${MAX_NAME_BYTES} bytes`,
      );
    }
    segments.push(segment);
  }
  if (segments.length > MAX_PATH_DEPTH) {
    throw refuse(`${label} is ${segments.length} levels deep; the limit is ${MAX_PATH_DEPTH}`);
  }
  if (segments.length === 0 && !options.allowRoot) {
    throw refuse(`${label} ${JSON.stringify(value)} names the workspace root; name a file inside it`);
  }
  return segments;
}

function refuse(message: string): WorkspaceError {
  return new WorkspaceError('invalid_path', `Refused: ${message}.`);
}
