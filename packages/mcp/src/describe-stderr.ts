/** Most lines of a server's stderr shown in one error message. */
const MAX_LINES = 3;
const MAX_CHARS = 400;

/**
 * True for a line that says something on its own: not indented (stack frames, source excerpts and
 * object dumps of Node and Python are), with a letter or digit in it (not a lone `^` or `}`), and not
 * Node's `Node.js v20.20.2` footer.
 */
function informative(line: string): boolean {
  return /^\S/.test(line) && /[\p{L}\p{N}]/u.test(line) && !/^Node\.js v\d/.test(line);
}

/**
 * A server's stderr in one line for an error message: its informative lines (see above), the first ones
 * for a server that died at start (where Node prints `Error: Cannot find module ...`), the last ones for a
 * server that died later (where its crash is); the last informative line is always included, as Python
 * prints the exception there. Empty when there is nothing to show. Not redacted: the caller redacts.
 */
export function describeStderr(text: string, which: 'first' | 'last'): string {
  const all = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  let lines = all.filter(informative);
  if (lines.length === 0) lines = all.map((line) => line.trim());
  if (lines.length === 0) return '';
  let shown: string[];
  if (which === 'last' || lines.length <= MAX_LINES) shown = lines.slice(-MAX_LINES);
  else shown = [...lines.slice(0, MAX_LINES - 1), '…', lines.at(-1) as string];
  const joined = shown.join(' | ').replace(' | … | ', ' … ');
  return joined.length <= MAX_CHARS ? joined : `${joined.slice(0, MAX_CHARS - 1)}…`;
}
