import { ConfigError, describeValue } from '@bridle/protocol';
import { checkServerConfig } from './check-server-config';
import { type ResolvedOptions, ServerConnection } from './server-connection';
import type { McpConnection, McpConnectOptions, McpServerConfig } from './types';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function resolveOptions(options: McpConnectOptions, where: string): ResolvedOptions {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigError(
      `${where}: timeoutMs must be a positive integer of milliseconds, got ${describeValue(timeoutMs)}.`,
    );
  }
  const trust = options.trust ?? 'annotations';
  if (trust !== 'annotations' && trust !== 'all' && trust !== 'none') {
    throw new ConfigError(`${where}: trust must be "annotations", "all" or "none", got ${describeValue(trust)}.`);
  }
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (typeof maxMessageBytes !== 'number' || !Number.isSafeInteger(maxMessageBytes) || maxMessageBytes <= 0) {
    throw new ConfigError(
      `${where}: maxMessageBytes must be a positive integer, got ${describeValue(maxMessageBytes)}.`,
    );
  }
  return {
    timeoutMs,
    trust,
    maxMessageBytes,
    onProgress: options.onProgress,
    onWarning: options.onWarning ?? ((message) => console.warn(`[bridle/mcp] ${message}`)),
  };
}

/**
 * Connects to one MCP server (stdio: started in its own process group; HTTP: Streamable HTTP, falling
 * back to SSE) and completes the handshake, all within `timeoutMs`. Rejects with `ConfigError` for a
 * bad server shape or option, and with an `Error` naming the server when it cannot be reached; `env`
 * and `headers` values never appear in any message.
 *
 * @example
 * const files = await connectMcp({ name: 'files', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '.'] });
 * const result = await runAgent({ model, tools: await files.tools(), prompt: '...' });
 * await files.close();
 */
export async function connectMcp(server: McpServerConfig, options: McpConnectOptions = {}): Promise<McpConnection> {
  const name = (server as { name?: unknown } | null)?.name;
  const where = typeof name === 'string' ? `MCP server "${name}"` : 'MCP server';
  checkServerConfig(server, where);
  return ServerConnection.open(server, resolveOptions(options, where));
}
