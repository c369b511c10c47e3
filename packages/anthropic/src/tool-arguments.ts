/**
 * Parses streamed `input_json_delta` text. Empty text is `{}` (a call without parameters); text that is not valid
 * JSON is returned as the raw string, so the registry rejects it and the model is told what was wrong.
 */
export function parseToolInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The `input` object of a `tool_use` block sent back in the transcript. Anthropic only takes objects, so arguments
 * that were not a JSON object (the raw text of a malformed call) are sent as `{}`; the tool result that follows
 * already tells the model its arguments were invalid.
 */
export function toolInputObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A tool's JSON Schema without zod 4's hidden `~standard` key, which providers reject. */
export function wireSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, '~standard')) return schema;
  const { '~standard': _standard, ...rest } = schema;
  return rest;
}
