/**
 * JSON with object keys sorted at every level and `undefined` members left out: the same data always gives
 * the same text, whatever order its keys were written or stored in (Postgres `jsonb` reorders them). For
 * digests and signatures over JSON data. Array holes and `undefined` items become `null`, as in `JSON.stringify`.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
