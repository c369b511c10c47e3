import { compilePrefixMatcher } from './glob-matcher';

/**
 * Paths the workspace refuses for every operation (read, write, edit, list, find, search, a preset's
 * path parameter) unless configured otherwise: the repository's `.git`, any nested `.git` (a planted
 * repository's config or hooks run code when someone uses git there), `.env*` files at any depth, and
 * the harness's own state, `.bridle` at any depth (a run store and journals kept in the folder: an agent
 * that could write there could plant an "approved" pause or a session the user would continue).
 */
export const DEFAULT_PROTECTED = ['.git/**', '**/.git/**', '.env*', '.bridle/**', '**/.bridle/**'] as const;

/**
 * Builds the test for protected paths. A path is protected when any of its prefixes matches a
 * pattern (so protecting a directory protects what is under it, even before it exists), or, for a
 * pattern without "/", when any single segment matches it (so `.env*` also covers `config/.env`).
 * Matching ignores case (on case-insensitive file systems `.GIT` is `.git`) and Unicode
 * normalization form (on macOS `cafe\u0301` is `caf\u00e9`): patterns and paths are compared in NFC.
 */
export function protectedPathMatcher(patterns: readonly string[]): (segments: readonly string[]) => boolean {
  if (patterns.length === 0) return () => false;
  const normalized = patterns.map((pattern) => pattern.normalize('NFC'));
  const prefixes = normalized.map((pattern) => compilePrefixMatcher(pattern, { nocase: true }));
  const singles = normalized
    .filter((pattern) => !pattern.includes('/'))
    .map((pattern) => compilePrefixMatcher(pattern, { nocase: true }));
  return (segments) => {
    const subject = segments.map((segment) => segment.normalize('NFC'));
    if (prefixes.some((matches) => matches(subject))) return true;
    return subject.some((segment) => singles.some((matches) => matches([segment])));
  };
}
