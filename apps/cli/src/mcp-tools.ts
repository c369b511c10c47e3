import { resolve } from 'node:path';
import type { McpConnection, McpServerConfig } from '@bridle/mcp';
import type { ProjectConfig } from '@bridle/models';
import type { Tool } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { CliIO } from './cli-io';
import type { Style } from './style';

/** The `--mcp <file>` flag of `run`, `chat`, `batch` and `serve`. */
export interface McpFlags {
  mcp?: string;
}

/** The tools of the MCP servers of one command, and how to stop those servers. */
export interface McpTools {
  tools: Tool[];
  /** The names of the servers whose tools are in `tools` (a run's manifest records them). */
  servers: string[];
  /** Ends every connection (stdio servers: their whole process group). Never rejects. */
  close(): Promise<void>;
}

/** Help text of the `--mcp` flag. */
export const MCP_FLAG_HELP =
  'MCP servers whose tools the agent may use: a JSON file { "mcpServers": { ... } } as Claude Code and Cursor write it (default: $BRIDLE_MCP_CONFIG); tools that are not read-only need approval';

/**
 * Connects to the MCP servers of the settings (`project`: the user's config, and a folder's
 * `bridle.config.json` and `.mcp.json` only once the folder is trusted, the latter parsed from the text
 * the user trusted) and of `--mcp <file>` (else `$BRIDLE_MCP_CONFIG`). A server of the same name in a
 * later source wins: config files, then `.mcp.json`, then the `--mcp` file. No servers: no tools, nothing loaded. A bad file is a
 * `ConfigError` (exit 2). A server that cannot be started or listed is left out with one warning line
 * naming it; the others keep working. Warnings of the servers (a skipped tool) go to stderr too.
 */
export async function openMcpTools(
  file: string | undefined,
  project: Pick<ProjectConfig, 'config' | 'mcpFiles'>,
  io: Pick<CliIO, 'env' | 'cwd' | 'stderr'>,
  style: Style,
): Promise<McpTools> {
  const warn = (message: string) => io.stderr.write(style.yellow(`bridle: ${message}\n`));
  const path = file ?? (io.env.BRIDLE_MCP_CONFIG || undefined);
  const fromSettings = Object.entries(project.config.mcpServers ?? {});
  if (path === undefined && fromSettings.length === 0 && project.mcpFiles.length === 0) {
    return { tools: [], servers: [], close: async () => undefined };
  }
  // Loaded on demand: the MCP SDK is only needed when servers are configured.
  const { connectMcp, loadMcpConfig, parseMcpConfig } = await import('@bridle/mcp');
  const byName = new Map<string, McpServerConfig>();
  for (const [name, server] of fromSettings) byName.set(name, { name, ...server } as McpServerConfig);
  for (const file of project.mcpFiles) {
    for (const server of parseMcpConfig(file.text, file.path, { env: io.env })) byName.set(server.name, server);
  }
  const fromFile = path === undefined ? [] : await loadMcpConfig(resolve(io.cwd, path), { env: io.env });
  for (const server of fromFile) byName.set(server.name, server);
  const servers = [...byName.values()];
  const connections: McpConnection[] = [];
  const listed = new Set<string>();
  const lists = await Promise.all(
    servers.map(async (server) => {
      let connection: McpConnection | undefined;
      try {
        connection = await connectMcp(server, { onWarning: warn });
        connections.push(connection);
        const tools = await connection.tools();
        listed.add(server.name);
        return tools;
      } catch (error) {
        warn(`${errorMessage(error)} (its tools are left out)`);
        await connection?.close();
        return [];
      }
    }),
  );
  return {
    tools: lists.flat(),
    servers: servers.map((server) => server.name).filter((name) => listed.has(name)),
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    },
  };
}
