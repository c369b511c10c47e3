/** Deepest nesting followed; deeper data (or a cycle) is left to `JSON.stringify`, which knows cycles. */
const MAX_DEPTH = 64;

/** Most characters a number takes in JSON (`-1.2345678901234567e-308`). */
const NUMBER_CHARS = 24;

// The tape's structure marks. Symbols, so no JSON value (a key or a string) can be taken for one.
const OBJECT = Symbol('object');
const ARRAY = Symbol('array');
const END = Symbol('end');

/**
 * JSON data written flat, in JSON's order: an object is `OBJECT, key, value, ..., END`, an array
 * `ARRAY, value, ..., END`, a string, number, boolean or null itself. One array holds a whole event: copying
 * into it pushes each value, where copying into new objects would add each field to an object of its own (a
 * shape change apiece: measured, about a third more for core's events), and the store keeps one object per
 * event, not one per object inside it. Never changed once written.
 */
export type JsonTape = readonly unknown[];

// The copy under way: its tape and the characters of JSON it takes at most (saved and restored around a copy,
// so a getter that appends to a store while it is read cannot mix two copies).
// The tape copies are written to, reused while it stays small (a large one is let go, with what it points to).
let scratch: unknown[] = [];
const SCRATCH_KEPT = 1024;
let tape: unknown[] = [];
// How much of `tape` the copy under way has written (the scratch tape is reused: it may hold more).
let size = 0;
let chars = 0;
let limit = 0;

/** True for a value that JSON leaves out of an object (and writes as `null` in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Writes `value` to the tape; false when it holds something only JSON itself says how to write. */
function write(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      chars += 2 + 6 * value.length;
      tape[size++] = value;
      return true;
    case 'number':
      chars += NUMBER_CHARS;
      // JSON writes NaN and the infinities as null, and -0 as 0.
      tape[size++] = Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
      return true;
    case 'boolean':
      chars += 5;
      tape[size++] = value;
      return true;
    case 'object':
      break;
    default:
      // A BigInt: JSON.stringify says why it cannot.
      return false;
  }
  if (value === null) {
    chars += 4;
    tape[size++] = null;
    return true;
  }
  if (depth >= MAX_DEPTH || chars > limit) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || chars + 2 * value.length > limit) return false;
    const length = value.length;
    chars += 2 + length;
    tape[size++] = ARRAY;
    for (let index = 0; index < length; index++) {
      const item: unknown = value[index];
      if (omitted(item)) {
        chars += 4;
        tape[size++] = null;
      } else if (!write(item, depth + 1)) return false;
    }
    tape[size++] = END;
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  // Anything with a JSON of its own making (a Date, a class with toJSON, a boxed string) goes through JSON.
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return false;
  const source = value as Record<string, unknown>;
  chars += 2;
  tape[size++] = OBJECT;
  // `for...in` lists the own enumerable string keys in JSON's order (without the array Object.keys makes), and
  // inherited ones only from a polluted Object.prototype, which jsonCopy turns down first.
  for (const key in source) {
    const item = source[key];
    if (omitted(item)) continue;
    // Read back, a `__proto__` key would set the copy's prototype instead of a field.
    if (key === '__proto__') return false;
    tape[size++] = key;
    chars += 4 + 6 * key.length;
    // Strings and numbers are most fields of an event: written here, without a call each.
    if (typeof item === 'string') {
      chars += 2 + 6 * item.length;
      tape[size++] = item;
    } else if (typeof item === 'number' && item !== 0 && Number.isFinite(item)) {
      chars += NUMBER_CHARS;
      tape[size++] = item;
    } else if (!write(item, depth + 1)) return false;
  }
  tape[size++] = END;
  return true;
}

/**
 * A copy of `value` as JSON would keep it (what {@link readTape} gives back equals
 * `JSON.parse(JSON.stringify(value))`) made without encoding (several times cheaper for small objects), or
 * undefined when `value` holds something only JSON itself says how to write: an object with a prototype of its
 * own or a `toJSON` (a Date, a class instance), a BigInt, a `__proto__` key, nesting deeper than 64 (or a
 * cycle), or when its JSON may take more than `maxChars` characters (an upper bound of it is counted as it is
 * copied), and anything while Object.prototype has an enumerable property. Never throws (getters aside).
 */
export function jsonCopy(value: unknown, maxChars: number): JsonTape | undefined {
  for (const _inherited in Object.prototype) return undefined;
  const savedTape = tape;
  const savedSize = size;
  const savedChars = chars;
  const savedLimit = limit;
  // Written to a scratch tape (grown once, reused), then copied at its exact size: the copy kept (for as long
  // as the store keeps the event) holds no spare capacity, and no growing array is left behind per event.
  // A copy made while another is under way (a getter that appends) writes to a tape of its own.
  const own = savedTape === scratch ? [] : scratch;
  tape = own;
  size = 0;
  chars = 0;
  limit = maxChars;
  try {
    return write(value, 0) && chars <= maxChars ? tape.slice(0, size) : undefined;
  } finally {
    if (own === scratch && own.length > SCRATCH_KEPT) scratch = [];
    tape = savedTape;
    size = savedSize;
    chars = savedChars;
    limit = savedLimit;
  }
}

// Where reading is on its tape.
let at = 0;

function read(from: JsonTape): unknown {
  const item = from[at++];
  if (item === OBJECT) {
    const object: Record<string, unknown> = {};
    while (from[at] !== END) {
      const key = from[at++] as string;
      object[key] = read(from);
    }
    at++;
    return object;
  }
  if (item === ARRAY) {
    const array: unknown[] = [];
    while (from[at] !== END) array.push(read(from));
    at++;
    return array;
  }
  return item;
}

/** A fresh value of a tape: plain objects and arrays, as `JSON.parse` would make them. */
export function readTape(from: JsonTape): unknown {
  const saved = at;
  at = 0;
  try {
    return read(from);
  } finally {
    at = saved;
  }
}

/** The JSON text of a tape's value (what `JSON.stringify` of the copied value wrote). */
export function tapeJson(from: JsonTape): string {
  return JSON.stringify(readTape(from));
}

/** The index just past the value that starts at `index`. */
function skip(from: JsonTape, index: number): number {
  let depth = 0;
  do {
    const item = from[index++];
    if (item === OBJECT || item === ARRAY) depth++;
    else if (item === END) depth--;
  } while (depth > 0);
  return index;
}

/** A fresh value of the field `key` of the object a tape holds (undefined without one), reading nothing else. */
export function tapeField(from: JsonTape, key: string): unknown {
  if (from[0] !== OBJECT) return undefined;
  let index = 1;
  while (from[index] !== END) {
    if (from[index] === key) {
      const saved = at;
      at = index + 1;
      try {
        return read(from);
      } finally {
        at = saved;
      }
    }
    index = skip(from, index + 1);
  }
  return undefined;
}
