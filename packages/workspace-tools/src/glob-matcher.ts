/** Most patterns a glob's braces may expand to (`{a,b}{c,d}` is 4). */
export const MAX_BRACE_EXPANSIONS = 256;
/** Most tokens (wildcards and characters) of all expanded patterns together: bounds the work per path. */
export const MAX_GLOB_TOKENS = 2048;
/** Most matching steps spent on one path (a few milliseconds); a glob that needs more is refused. */
export const MAX_MATCH_STEPS = 200_000;

/** Thrown by a matcher when one path needs more than {@link MAX_MATCH_STEPS} steps. */
export class GlobTooCostlyError extends RangeError {
  constructor(readonly path: string) {
    super(`needs more than ${MAX_MATCH_STEPS} matching steps for "${path}"`);
    this.name = 'GlobTooCostlyError';
  }
}

type Token =
  | { kind: 'star' }
  | { kind: 'any' }
  | { kind: 'literal'; character: string }
  | { kind: 'class'; negated: boolean; ranges: [string, string][] };

/** A compiled segment: `**` (any number of segments), or tokens for one segment. */
type Segment = 'globstar' | Token[];

/**
 * Compiles a model-supplied glob into a matcher that runs in time polynomial in the pattern and the
 * path (dynamic programming, no regular expression), so no glob can backtrack catastrophically the
 * way regex-based matchers do on `?*?*?*?*?*!` against a long name.
 *
 * Syntax (picomatch's, minus extglobs): `*` (any characters but "/", dotfiles included), `**` as a
 * whole segment (any number of segments), `?`, `[abc]`, `[a-z]`, `[!a]` / `[^a]`, braces `{a,b}` and
 * ranges `{1..3}` (expanded, at most {@link MAX_BRACE_EXPANSIONS} patterns), and a leading `!` that
 * negates. Other characters are literal; "." and empty segments are ignored. With `basename`, the
 * pattern is matched against the last segment only. Throws `RangeError` for too many expansions or
 * more than {@link MAX_GLOB_TOKENS} tokens in all; the matcher throws {@link GlobTooCostlyError} when
 * one path needs more than {@link MAX_MATCH_STEPS} steps, so no path blocks the event loop for long.
 */
export function compileGlobMatcher(glob: string, options: { basename: boolean }): (path: string) => boolean {
  const negated = glob.startsWith('!');
  const body = negated ? glob.slice(1) : glob;
  const compiled = expandBraces(body).map((pattern) =>
    pattern
      .split('/')
      .filter((segment) => segment !== '' && segment !== '.')
      .map((segment): Segment => (segment === '**' ? 'globstar' : tokenize(segment))),
  );
  const tokens = compiled.reduce(
    (sum, pattern) =>
      sum + pattern.reduce((count, segment) => count + (segment === 'globstar' ? 1 : segment.length), 0),
    0,
  );
  if (tokens > MAX_GLOB_TOKENS) {
    throw new RangeError(
      `expands to ${tokens} wildcards and characters across ${compiled.length} patterns, above the limit of ${MAX_GLOB_TOKENS}`,
    );
  }
  return (path) => {
    const segments = path.split('/');
    const subject = (options.basename ? segments.slice(-1) : segments).map((segment) => Array.from(segment));
    const budget = { steps: MAX_MATCH_STEPS, path };
    const found = compiled.some((pattern) => matchSegments(pattern, subject, budget));
    return found !== negated;
  };
}

/**
 * A matcher for the workspace's protected patterns (trusted configuration, same syntax): true when any
 * leading run of `segments` (a prefix: `a`, `a/b`, ...) matches `glob`, decided in one pass over the path
 * (a regex per prefix costs time quadratic in the path's length). With `nocase`, case is ignored.
 * A negated pattern is checked prefix by prefix.
 */
export function compilePrefixMatcher(
  glob: string,
  options: { nocase: boolean },
): (segments: readonly string[]) => boolean {
  const fold = (text: string) => (options.nocase ? text.toLowerCase() : text);
  if (glob.startsWith('!')) {
    const whole = compileGlobMatcher(fold(glob), { basename: false });
    return (segments) =>
      segments.some((_, index) =>
        whole(
          segments
            .slice(0, index + 1)
            .map(fold)
            .join('/'),
        ),
      );
  }
  const compiled = expandBraces(fold(glob)).map((pattern) =>
    pattern
      .split('/')
      .filter((segment) => segment !== '' && segment !== '.')
      .map((segment): Segment => (segment === '**' ? 'globstar' : tokenize(segment))),
  );
  return (segments) => {
    const subject = segments.map((segment) => Array.from(fold(segment)));
    const budget = { steps: Number.POSITIVE_INFINITY, path: '' };
    return compiled.some((pattern) => {
      const reachable = reachablePositions(pattern, subject, budget);
      return reachable.some((reached, index) => reached && index > 0);
    });
  };
}

interface Budget {
  steps: number;
  path: string;
}

function spend(budget: Budget, steps: number): void {
  budget.steps -= steps;
  if (budget.steps < 0) throw new GlobTooCostlyError(budget.path);
}

/** Expands `{a,b}` and `{1..3}` (nested too); an unbalanced or comma-less brace is literal. */
function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (open === undefined) return [pattern];
  const { start, end, alternatives } = open;
  const results: string[] = [];
  const prefix = pattern.slice(0, start);
  for (const suffix of expandBraces(pattern.slice(end + 1))) {
    for (const alternative of alternatives.flatMap(expandBraces)) {
      results.push(prefix + alternative + suffix);
      if (results.length > MAX_BRACE_EXPANSIONS) {
        throw new RangeError(`expands to more than ${MAX_BRACE_EXPANSIONS} patterns`);
      }
    }
  }
  return results;
}

/** The first brace group that expands: its bounds and top-level alternatives. */
function findBrace(pattern: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = pattern.indexOf('{'); start !== -1; start = pattern.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let index = start; index < pattern.length; index++) {
      const character = pattern[index];
      if (character === '{') depth++;
      else if (character === ',' && depth === 1) commas.push(index);
      else if (character === '}' && --depth === 0) {
        const inner = pattern.slice(start + 1, index);
        if (commas.length > 0) {
          const bounds = [start, ...commas, index];
          const alternatives = bounds.slice(1).map((bound, at) => pattern.slice(bounds[at]! + 1, bound));
          return { start, end: index, alternatives };
        }
        const range = expandRange(inner);
        if (range !== undefined) return { start, end: index, alternatives: range };
        break;
      }
    }
  }
  return undefined;
}

/** `1..3` or `a..c` as its members, or `undefined` when it is not a range. */
function expandRange(inner: string): string[] | undefined {
  const numeric = /^(-?\d{1,9})\.\.(-?\d{1,9})$/.exec(inner);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(inner);
  if (numeric === null && letters === null) return undefined;
  const [from, to] = numeric
    ? [Number(numeric[1]), Number(numeric[2])]
    : [letters![1]!.charCodeAt(0), letters![2]!.charCodeAt(0)];
  if (Math.abs(to - from) >= MAX_BRACE_EXPANSIONS) {
    throw new RangeError(`expands to more than ${MAX_BRACE_EXPANSIONS} patterns`);
  }
  const step = from <= to ? 1 : -1;
  const members: string[] = [];
  for (let value = from; value !== to + step; value += step) {
    members.push(numeric ? String(value) : String.fromCharCode(value));
  }
  return members;
}

function tokenize(segment: string): Token[] {
  const characters = Array.from(segment);
  const tokens: Token[] = [];
  for (let index = 0; index < characters.length; index++) {
    const character = characters[index]!;
    if (character === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (character === '?') tokens.push({ kind: 'any' });
    else if (character === '[') {
      const parsed = parseClass(characters, index);
      if (parsed === undefined) tokens.push({ kind: 'literal', character });
      else {
        tokens.push(parsed.token);
        index = parsed.end;
      }
    } else tokens.push({ kind: 'literal', character });
  }
  return tokens;
}

/** Parses `[...]` starting at `start`; `undefined` when it is not closed (then "[" is literal). */
function parseClass(characters: string[], start: number): { token: Token; end: number } | undefined {
  let index = start + 1;
  const negated = characters[index] === '!' || characters[index] === '^';
  if (negated) index++;
  const ranges: [string, string][] = [];
  for (let first = true; index < characters.length; index++, first = false) {
    const character = characters[index]!;
    if (character === ']' && !first) return { token: { kind: 'class', negated, ranges }, end: index };
    if (characters[index + 1] === '-' && characters[index + 2] !== undefined && characters[index + 2] !== ']') {
      ranges.push([character, characters[index + 2]!]);
      index += 2;
    } else ranges.push([character, character]);
  }
  return undefined;
}

/** Whether path segments match pattern segments; `**` takes zero or more whole segments. */
function matchSegments(pattern: Segment[], segments: string[][], budget: Budget): boolean {
  return reachablePositions(pattern, segments, budget)[segments.length] === true;
}

/** For each j, whether the whole pattern can consume exactly the first j path segments. */
function reachablePositions(pattern: Segment[], segments: string[][], budget: Budget): boolean[] {
  // reachable[j]: the pattern prefix seen so far can consume exactly the first j path segments.
  let reachable = segments.map((_, index) => index === 0).concat(segments.length === 0);
  for (const segment of pattern) {
    const next = new Array<boolean>(segments.length + 1).fill(false);
    spend(budget, segments.length + 1);
    for (let index = 0; index <= segments.length; index++) {
      if (!reachable[index]) continue;
      if (segment === 'globstar') {
        for (let rest = index; rest <= segments.length; rest++) next[rest] = true;
        break; // every later position is reachable already
      }
      if (index < segments.length && matchSegment(segment, segments[index]!, budget)) next[index + 1] = true;
    }
    reachable = next;
  }
  return reachable;
}

/** Wildcard match of one segment in O(tokens × characters): backtracks only to the last `*`. */
function matchSegment(tokens: Token[], characters: string[], budget: Budget): boolean {
  let token = 0;
  let character = 0;
  let starToken = -1;
  let starCharacter = 0;
  let steps = 0;
  while (character < characters.length) {
    if (++steps === 1024) {
      spend(budget, steps);
      steps = 0;
    }
    const current = tokens[token];
    if (current !== undefined && current.kind === 'star') {
      starToken = token++;
      starCharacter = character;
    } else if (current !== undefined && matchesOne(current, characters[character]!)) {
      token++;
      character++;
    } else if (starToken !== -1) {
      token = starToken + 1;
      character = ++starCharacter;
    } else return false;
  }
  spend(budget, steps + 1);
  while (tokens[token]?.kind === 'star') token++;
  return token === tokens.length;
}

function matchesOne(token: Token, character: string): boolean {
  switch (token.kind) {
    case 'any':
      return true;
    case 'literal':
      return token.character === character;
    case 'class':
      return token.ranges.some(([low, high]) => character >= low && character <= high) !== token.negated;
    default:
      return false;
  }
}
