import picomatch from 'picomatch';

/** Paths the workspace refuses to touch unless configured otherwise. */
export const DEFAULT_PROTECTED = ['.git/**', '.env*'] as const;

/**
 * Builds the test for protected paths. A path is protected when any of its prefixes matches a
 * pattern (so protecting a directory protects what is under it, even before it exists), or, for a
 * pattern without "/", when any single segment matches it (so `.env*` also covers `config/.env`).
 * Matching ignores case: on case-insensitive file systems `.GIT` is `.git`.
 */
export function protectedPathMatcher(patterns: readonly string[]): (segments: readonly string[]) => boolean {
  if (patterns.length === 0) return () => false;
  const options = { dot: true, nocase: true, noextglob: true };
  const whole = picomatch([...patterns], options);
  const segmentPatterns = patterns.filter((pattern) => !pattern.includes('/'));
  const single = segmentPatterns.length > 0 ? picomatch(segmentPatterns, options) : () => false;
  return (segments) => {
    let prefix = '';
    for (const segment of segments) {
      prefix = prefix === '' ? segment : `${prefix}/${segment}`;
      if (single(segment) || whole(prefix)) return true;
    }
    return false;
  };
}
