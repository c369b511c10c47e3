/** One step of a path into a JSON value: an object key or an array index. */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Paths longer than this are shown as their head and tail, so a 10,000-deep path stays readable. */
const MAX_SHOWN_SEGMENTS = 16;

function formatSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return `[${segment}]`;
  return IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
}

/**
 * Formats a path as `$`, `$.a.b[0]` or `$["key with spaces"]`. Very long paths keep their first 10
 * and last 5 segments around a `…` marker.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  if (segments.length <= MAX_SHOWN_SEGMENTS) return `$${segments.map(formatSegment).join('')}`;
  const head = segments.slice(0, 10).map(formatSegment).join('');
  const tail = segments.slice(-5).map(formatSegment).join('');
  return `$${head}…(${segments.length - 15} more)…${tail}`;
}

/**
 * Turns an Ajv instance path (a JSON Pointer such as `/a/0/b`) into path segments, using the data to
 * tell array indexes from object keys named like numbers. Never throws.
 */
export function pointerToSegments(pointer: string, data: unknown): PathSegment[] {
  if (pointer === '') return [];
  const segments: PathSegment[] = [];
  let current: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(key)) {
      segments.push(Number(key));
      current = current[Number(key)];
    } else {
      segments.push(key);
      current = readOwn(current, key);
    }
  }
  return segments;
}

/** Reads an own property without ever running into the prototype chain (or throwing). */
export function readOwn(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}
