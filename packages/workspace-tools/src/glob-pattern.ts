import picomatch from 'picomatch';
import { invalidArguments } from './check-arguments';
import { compileGlobMatcher, GlobTooCostlyError } from './glob-matcher';
import { parsePath } from './path-rules';
import type { WorkspaceError } from './workspace-error';

/** Longest accepted glob, in characters. */
export const MAX_GLOB_LENGTH = 1000;

/** A checked glob: where to start walking, and the matcher for relative paths. */
export interface CompiledGlob {
  base: string | undefined;
  matches: (path: string) => boolean;
}

/**
 * Compiles a model-supplied glob (syntax of {@link compileGlobMatcher}). Refuses what could reach
 * outside the root or confuse matching: NUL, backslashes, absolute paths, `..`, braces that expand to
 * too many patterns. picomatch only finds the literal base to walk from: its regex matching can
 * backtrack catastrophically (`?*?*?*?*?*?*!` against a long name blocks the event loop for
 * seconds), so matching uses a matcher without regexes. With `matchBase`, a glob without "/"
 * matches the file name at any depth.
 */
export function compileGlob(tool: string, key: string, glob: string, options: { matchBase: boolean }): CompiledGlob {
  if (glob.length > MAX_GLOB_LENGTH) {
    throw invalidArguments(tool, `"${key}" is ${glob.length} characters long; the limit is ${MAX_GLOB_LENGTH}`);
  }
  const scan = picomatch.scan(glob);
  // The literal base is a path like any other: the same rules apply (no "..", not absolute, ...).
  const base = parsePath(scan.isGlob ? scan.base : parentOf(glob), { allowRoot: true, label: key }).join('/');
  parsePath(glob, { allowRoot: true, label: key });
  let matches: (path: string) => boolean;
  try {
    matches = compileGlobMatcher(glob, { basename: options.matchBase && !glob.includes('/') });
  } catch (error) {
    throw invalidArguments(tool, `"${key}" ${(error as Error).message}; use fewer braces or wildcards`);
  }
  // A negated glob matches outside its literal base too: walk everything.
  return { base: base === '' || scan.negated ? undefined : base, matches };
}

function parentOf(path: string): string {
  const index = path.lastIndexOf('/');
  return index === -1 ? '.' : path.slice(0, index);
}

/** Turns a matcher that ran over its step budget into a refusal naming the glob; other errors pass through. */
export function globCostRefusal(tool: string, key: string, error: unknown): unknown {
  if (!(error instanceof GlobTooCostlyError)) return error;
  const refusal: WorkspaceError = invalidArguments(
    tool,
    `"${key}" is too costly to match: it ${error.message}; use fewer wildcards or braces`,
  );
  return refusal;
}
