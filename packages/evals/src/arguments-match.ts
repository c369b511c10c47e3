/**
 * True when `actual` has what `expected` asks for: every key of an expected object is in the actual object
 * with a matching value (recursively, so nested objects are partial too); arrays match element by element
 * with the same length; anything else is compared with `Object.is`. `undefined` expects nothing.
 */
export function argumentsMatch(expected: unknown, actual: unknown): boolean {
  if (expected === undefined) return true;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((entry, index) => argumentsMatch(entry, actual[index]))
    );
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([key, value]) => Object.hasOwn(actual, key) && argumentsMatch(value, (actual as Record<string, unknown>)[key]),
    );
  }
  return Object.is(expected, actual);
}
