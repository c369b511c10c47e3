/** The wire form of a tool call's arguments: a raw string (unparseable arguments) is sent back verbatim. */
export function stringifyToolArguments(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}
