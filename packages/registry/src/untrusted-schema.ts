/**
 * Marks a tool whose schema came from an untrusted source (an MCP server, an HTTP client, a workspace
 * file): `tool[UNTRUSTED_SCHEMA] = true`. The registry then evaluates its `pattern` and
 * `patternProperties` on a linear-time engine (re2js), and refuses, with a `ConfigError` naming the
 * tool, a pattern that engine cannot run (lookaround, backreferences). A registered symbol, so a tool
 * marked by another copy of this package is recognised too; object spread keeps it.
 */
export const UNTRUSTED_SCHEMA: unique symbol = Symbol.for('bridle.tool.untrustedSchema') as never;

/** True when `tool` carries the {@link UNTRUSTED_SCHEMA} mark. */
export function hasUntrustedSchema(tool: object): boolean {
  return (tool as Record<symbol, unknown>)[UNTRUSTED_SCHEMA] === true;
}
