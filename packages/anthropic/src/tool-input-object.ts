/**
 * The `input` object of a `tool_use` block sent back in the transcript. Anthropic only takes objects, so arguments
 * that were not a JSON object (the raw text of a malformed call) are sent as `{}`; the tool result that follows
 * already tells the model its arguments were invalid.
 */
export function toolInputObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
