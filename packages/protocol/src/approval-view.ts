/** Options of {@link approvalView}. */
export interface ApprovalViewOptions {
  /**
   * Longest value (and key) shown whole, in characters; a longer one keeps its head and tail around
   * `…[N characters]…`. Default 200; at least 20.
   */
  maxValueChars?: number;
}

/** One argument of a call as an approval view shows it. */
export interface ApprovalViewField {
  /** The argument's key (shortened in the middle only when longer than `maxValueChars`). */
  key: string;
  /** The value as JSON text; a long one keeps its head and tail around `…[N characters]…`. */
  value: string;
  /** Characters left out of the key and value (0: shown whole). */
  omitted: number;
}

/** What a person is shown of a call before approving it: see {@link approvalView}. */
export interface ApprovalView {
  /** Every argument key, in the model's order (empty when the arguments are not an object). */
  fields: ApprovalViewField[];
  /** The arguments on one line: `{"path":"a.txt","content":"ab…[9000 characters]…yz"}`. */
  text: string;
  /** Characters left out over the whole view (0: the view is the whole call). */
  omitted: number;
  /** The complete arguments as indented JSON: what "show all" displays. */
  full: string;
}

const DEFAULT_MAX_VALUE_CHARS = 200;
const LEAST_MAX_VALUE_CHARS = 20;

/** Keys (lowercase, without `_` and `-`) whose values decide where or what a call acts on. */
const WHOLE_KEYS = new Set(['command', 'params', 'parameters', 'preset', 'cwd', 'source', 'destination']);
const WHOLE_ENDINGS = ['path', 'paths', 'url', 'urls', 'uri', 'uris'];

/**
 * True for an argument key that an approval view never shortens: the keys that decide where or what a
 * call acts on. Compared in lowercase without `_` and `-`: `command` (a command line, or a preset's name),
 * `params` / `parameters` (a preset's parameters), `preset`, `cwd`, `source`, `destination`, and every key
 * ending in `path`, `paths`, `url`, `urls`, `uri` or `uris` (`path`, `filePath`, `file_path`, `baseUrl`).
 */
export function isWholeArgumentKey(key: string): boolean {
  const plain = key.toLowerCase().replace(/[_-]/g, '');
  return WHOLE_KEYS.has(plain) || WHOLE_ENDINGS.some((ending) => plain.endsWith(ending));
}

/** JSON text of any value; never throws (a value JSON cannot hold is described instead). */
function jsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? 'undefined';
  } catch {
    return `[${typeof value} that JSON cannot hold]`;
  }
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** UTF-16 units of the first `count` code points of `text`. */
function headUnits(text: string, count: number): number {
  let at = 0;
  for (let taken = 0; taken < count && at < text.length; taken++)
    at += isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
  return at;
}

/** UTF-16 units of the last `count` code points of `text`. */
function tailUnits(text: string, count: number): number {
  let at = text.length;
  for (let taken = 0; taken < count && at > 0; taken++)
    at -= at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2)) ? 2 : 1;
  return text.length - at;
}

/** Code points of `text` (a scan, no allocation). */
function codePoints(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++, count++)
    if (isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1))) at++;
  return count;
}

/** `text` cut in its middle to at most `max` characters of its own (code points, never half a pair). */
function middle(text: string, max: number): { head: string; tail: string; omitted: number } | undefined {
  if (text.length <= max) return undefined;
  const length = codePoints(text);
  if (length <= max) return undefined;
  const headLength = Math.ceil(max / 2);
  const tailLength = max - headLength;
  return {
    head: text.slice(0, headUnits(text, headLength)),
    tail: text.slice(text.length - tailUnits(text, tailLength)),
    omitted: length - headLength - tailLength,
  };
}

const marker = (omitted: number) => `…[${omitted} characters]…`;

/** A string as JSON text, its content shortened in the middle when longer than `max`. */
function stringText(value: string, max: number): { text: string; omitted: number } {
  const cut = middle(value, max);
  if (!cut) return { text: JSON.stringify(value), omitted: 0 };
  const head = JSON.stringify(cut.head).slice(0, -1);
  const tail = JSON.stringify(cut.tail).slice(1);
  return { text: `${head}${marker(cut.omitted)}${tail}`, omitted: cut.omitted };
}

/** Any value as JSON text, shortened in the middle when longer than `max` (strings: inside the quotes). */
function valueText(value: unknown, max: number): { text: string; omitted: number } {
  if (typeof value === 'string') return stringText(value, max);
  const text = jsonText(value);
  const cut = middle(text, max);
  return cut ? { text: `${cut.head}${marker(cut.omitted)}${cut.tail}`, omitted: cut.omitted } : { text, omitted: 0 };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The view of a tool call's arguments that a person approves (the CLI's question, the inspector's card).
 * It shows every argument key, in the model's order: a long value is shortened in its middle (head and
 * tail kept around `…[N characters]…`, N counted in characters), never by dropping keys, so a long first
 * value cannot push a later `path` out of sight. Values of {@link isWholeArgumentKey} keys (`path`,
 * `command`, `url`, a preset's name and parameters) are never shortened. `full` keeps the whole arguments,
 * for a "show all" one action away. Pure; never throws. Control characters are escaped by JSON in `text`
 * and `value` (C1 controls and bidi marks are not: escape them before printing to a terminal).
 */
export function approvalView(args: unknown, options: ApprovalViewOptions = {}): ApprovalView {
  const requested = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  const max = Number.isNaN(requested)
    ? DEFAULT_MAX_VALUE_CHARS
    : Math.max(LEAST_MAX_VALUE_CHARS, Math.floor(requested));
  const full = jsonText(args, 2);
  if (!isPlainObject(args)) {
    const { text, omitted } = valueText(args, max);
    return { fields: [], text, omitted, full };
  }
  const fields: ApprovalViewField[] = [];
  const parts: string[] = [];
  let omitted = 0;
  for (const key of Object.keys(args)) {
    const shownKey = stringText(key, max);
    const shownValue = isWholeArgumentKey(key) ? { text: jsonText(args[key]), omitted: 0 } : valueText(args[key], max);
    const field = {
      // A shortened key is shown as its JSON text without the quotes (it is no longer the key itself).
      key: shownKey.omitted === 0 ? key : shownKey.text.slice(1, -1),
      value: shownValue.text,
      omitted: shownKey.omitted + shownValue.omitted,
    };
    fields.push(field);
    parts.push(`${shownKey.text}:${shownValue.text}`);
    omitted += field.omitted;
  }
  const text = `{${parts.join(',')}}`;
  return { fields, text, omitted, full };
}
