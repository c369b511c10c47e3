/** Deepest nesting followed; deeper data (or a cycle) is left to `JSON.stringify`, which knows cycles. */
const MAX_DEPTH = 64;

/** Most characters a number takes in JSON (`-1.2345678901234567e-308`). */
const NUMBER_CHARS = 24;

/** What {@link jsonCopy} returns for data it does not copy itself. */
const UNCOPIED = Symbol('uncopied');

// Characters of JSON at most, counted during one copy (saved and restored around it, so a getter that
// appends to a store while it is read cannot mix two counts).
let chars = 0;
let limit = 0;

/** True for a value that JSON leaves out of an object (and writes as `null` in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function copyValue(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      chars += 2 + 6 * value.length;
      return value;
    case 'number':
      chars += NUMBER_CHARS;
      // JSON writes NaN and the infinities as null, and -0 as 0.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'boolean':
      chars += 5;
      return value;
    case 'object':
      break;
    default:
      // A BigInt: JSON.stringify says why it cannot.
      return UNCOPIED;
  }
  if (value === null) {
    chars += 4;
    return null;
  }
  if (depth >= MAX_DEPTH || chars > limit) return UNCOPIED;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || chars + 2 * value.length > limit) return UNCOPIED;
    const length = value.length;
    const copy: unknown[] = new Array(length);
    chars += 2 + length;
    for (let index = 0; index < length; index++) {
      const item: unknown = value[index];
      if (omitted(item)) {
        chars += 4;
        copy[index] = null;
        continue;
      }
      const copied = copyValue(item, depth + 1);
      if (copied === UNCOPIED) return UNCOPIED;
      copy[index] = copied;
    }
    return copy;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  // Anything with a JSON of its own making (a Date, a class with toJSON, a boxed string) goes through JSON.
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return UNCOPIED;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  chars += 2;
  // `for...in` lists the own enumerable string keys in JSON's order (without the array Object.keys makes), and
  // inherited ones only from a polluted Object.prototype, which jsonCopy turns down first.
  for (const key in source) {
    const item = source[key];
    if (omitted(item)) continue;
    // Assigning `__proto__` would set the copy's prototype instead of a key.
    if (key === '__proto__') return UNCOPIED;
    const copied = copyValue(item, depth + 1);
    if (copied === UNCOPIED) return UNCOPIED;
    copy[key] = copied;
    chars += 4 + 6 * key.length;
  }
  return copy;
}

/** A copy of JSON data and the most characters its JSON can take. */
export interface JsonCopy {
  value: unknown;
  /** An upper bound of `JSON.stringify(value).length`. */
  maxChars: number;
}

/**
 * A deep copy equal to `JSON.parse(JSON.stringify(value))` made without encoding (several times cheaper for
 * small objects), or undefined when `value` holds something only JSON itself says how to write: an object with
 * a prototype of its own or a `toJSON` (a Date, a class instance), a BigInt, a `__proto__` key, nesting
 * deeper than 64 (or a cycle), or more JSON than `maxChars` may allow, and anything while Object.prototype has an
 * enumerable property. Never throws (getters aside).
 */
export function jsonCopy(value: unknown, maxChars: number): JsonCopy | undefined {
  for (const _inherited in Object.prototype) return undefined;
  const savedChars = chars;
  const savedLimit = limit;
  chars = 0;
  limit = maxChars;
  try {
    const copy = copyValue(value, 0);
    return copy === UNCOPIED ? undefined : { value: copy, maxChars: chars };
  } finally {
    chars = savedChars;
    limit = savedLimit;
  }
}
