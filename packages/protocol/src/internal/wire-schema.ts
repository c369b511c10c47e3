/** A tool's JSON Schema without zod 4's hidden `~standard` key, which providers reject. */
export function wireSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, '~standard')) return schema;
  const { '~standard': _standard, ...rest } = schema;
  return rest;
}
