/**
 * Reads the arguments of a tool call as a provider sent them. Empty (or absent) text is `{}` (a call without
 * parameters); text that is not valid JSON is returned as the raw string, so the registry rejects it and the
 * model is told what was wrong. A value that is already parsed (some compatible servers send an object instead
 * of a JSON string) is taken as it is. Never throws.
 */
export function parseToolArguments(value: unknown): unknown {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'string') return value;
  if (value.trim() === '') return {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
