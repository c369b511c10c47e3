import picomatch from 'picomatch';
import { parsePath } from './path-rules';
import { invalidArguments } from './tool-arguments';

/** Longest accepted glob, in characters. */
export const MAX_GLOB_LENGTH = 1000;

/** A checked glob: where to start walking, and the matcher for relative paths. */
export interface CompiledGlob {
  base: string | undefined;
  matches: (path: string) => boolean;
}

/**
 * Compiles a model-supplied glob with picomatch. Refuses what could reach outside the root or
 * confuse matching: NUL, backslashes, absolute paths, `..`; extglobs are off (they compile to
 * backtracking-prone regexes). With `matchBase`, a glob without "/" matches the file name at any depth.
 */
export function compileGlob(tool: string, key: string, glob: string, options: { matchBase: boolean }): CompiledGlob {
  if (glob.length > MAX_GLOB_LENGTH) {
    throw invalidArguments(tool, `"${key}" is ${glob.length} characters long; the limit is ${MAX_GLOB_LENGTH}`);
  }
  const scan = picomatch.scan(glob);
  // The literal base is a path like any other: the same rules apply (no "..", not absolute, ...).
  const base = parsePath(scan.isGlob ? scan.base : parentOf(glob), { allowRoot: true, label: key }).join('/');
  parsePath(glob, { allowRoot: true, label: key });
  const matcher = picomatch(glob, {
    dot: true,
    noextglob: true,
    basename: options.matchBase && !glob.includes('/'),
  });
  return { base: base === '' ? undefined : base, matches: (path) => matcher(path) };
}

function parentOf(path: string): string {
  const index = path.lastIndexOf('/');
  return index === -1 ? '.' : path.slice(0, index);
}
