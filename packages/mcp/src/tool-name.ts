import { createHash } from 'node:crypto';

/** The registry's tool name rule (a letter, then up to 63 letters, digits, `_` or `-`). */
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The Bridle name of an MCP tool: `<server>__<tool>`, characters outside `[A-Za-z0-9_-]` replaced by
 * `_`, prefixed with `mcp_` when it would not start with a letter, and cut to 64 characters ending in
 * `_` + an 8-hex-digit hash of the original `<server>__<tool>` when longer. Deterministic; the server
 * always receives its own original name.
 */
export function mcpToolName(server: string, tool: string): string {
  let name = `${sanitize(server)}__${sanitize(tool)}`;
  if (!/^[A-Za-z]/.test(name)) name = `mcp_${name}`;
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(`${server}__${tool}`).digest('hex').slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
