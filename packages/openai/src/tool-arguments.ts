/**
 * Parses the arguments text of a tool call. Empty text is `{}` (a call without parameters); text that is not valid
 * JSON is returned as the raw string, so the registry rejects it and the model is told what was wrong.
 */
export function parseToolArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The wire form of a tool call's arguments: a raw string (unparseable arguments) is sent back verbatim. */
export function stringifyToolArguments(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/** A tool's JSON Schema without zod 4's hidden `~standard` key, which providers reject. */
export function wireSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, '~standard')) return schema;
  const { '~standard': _standard, ...rest } = schema;
  return rest;
}
