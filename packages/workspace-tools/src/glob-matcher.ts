/** Most patterns a glob's braces may expand to (`{a,b}{c,d}` is 4). */
export const MAX_BRACE_EXPANSIONS = 256;

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
 * pattern is matched against the last segment only. Throws `RangeError` for too many expansions.
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
  return (path) => {
    const segments = path.split('/');
    const subject = options.basename ? segments.slice(-1) : segments;
    const found = compiled.some((pattern) => matchSegments(pattern, subject));
    return found !== negated;
  };
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
function matchSegments(pattern: Segment[], segments: string[]): boolean {
  // reachable[j]: the pattern prefix seen so far can consume exactly the first j path segments.
  let reachable = segments.map((_, index) => index === 0).concat(segments.length === 0);
  for (const segment of pattern) {
    const next = new Array<boolean>(segments.length + 1).fill(false);
    for (let index = 0; index <= segments.length; index++) {
      if (!reachable[index]) continue;
      if (segment === 'globstar') {
        for (let rest = index; rest <= segments.length; rest++) next[rest] = true;
        break; // every later position is reachable already
      }
      if (index < segments.length && matchSegment(segment, Array.from(segments[index]!))) next[index + 1] = true;
    }
    reachable = next;
  }
  return reachable[segments.length] === true;
}

/** Wildcard match of one segment in O(tokens × characters): backtracks only to the last `*`. */
function matchSegment(tokens: Token[], characters: string[]): boolean {
  let token = 0;
  let character = 0;
  let starToken = -1;
  let starCharacter = 0;
  while (character < characters.length) {
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
