/**
 * One JSON line for `value` (ending in `\n`). Values JSON cannot hold are written anyway rather than lost:
 * a BigInt becomes its decimal string, a repeated (circular) object `"[Circular]"`. Never throws unless a
 * `toJSON` method throws.
 */
export function toJsonLine(value: unknown): string {
  try {
    return `${JSON.stringify(value)}\n`;
  } catch {
    const seen = new WeakSet<object>();
    return `${JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint') return item.toString();
      if (typeof item === 'object' && item !== null) {
        if (seen.has(item)) return '[Circular]';
        seen.add(item);
      }
      return item;
    })}\n`;
  }
}
