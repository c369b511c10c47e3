import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, describeValue } from '@bridle/protocol';
import { checkServerConfig } from './check-server-config';
import { expandVariables } from './expand-variables';
import type { McpServerConfig } from './types';

/** Options of {@link loadMcpConfig}. */
export interface LoadMcpConfigOptions {
  /** Where `${VAR}` takes its values. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

const MAX_CONFIG_BYTES = 1024 * 1024;
const KNOWN_KEYS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expandDeep(value: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (typeof value === 'string') return expandVariables(value, env, where);
  if (Array.isArray(value)) return value.map((item, index) => expandDeep(item, env, `${where}[${index}]`));
  if (isObject(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = expandDeep(item, env, `${where}.${key}`);
    return result;
  }
  return value;
}

/** A command written as a relative path (`./server.js`, `bin/server`) resolves against the file's folder; a bare name stays a PATH lookup. */
function resolveCommand(command: string, folder: string): string {
  if (path.isAbsolute(command) || !/[\\/]/.test(command)) return command;
  return path.resolve(folder, command);
}

/**
 * Reads an MCP config file in the shape Claude Code, Cursor and others use:
 * `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } | { "url", "headers"? } } }`,
 * with an optional `"type": "stdio" | "http" | "sse"`. `${VAR}` and `${VAR:-default}` are expanded in
 * every string; a relative `command` (one with a slash) and `cwd` resolve against the file's folder;
 * unknown keys are ignored. Returns entries `{ name, ...server }` that {@link connectMcp} takes as they are.
 * Rejects with `ConfigError` naming the file (and the server) for a missing file, bad JSON, a bad shape or
 * an unset variable. Never shows `env` or `headers` values.
 */
export async function loadMcpConfig(file: string, options: LoadMcpConfigOptions = {}): Promise<McpServerConfig[]> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    const handle = await fs.open(absolute, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_CONFIG_BYTES) {
        throw new ConfigError(`${absolute} is ${size} bytes: an MCP config is at most ${MAX_CONFIG_BYTES} bytes.`);
      }
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `Cannot read the MCP config ${absolute} (${code ?? (error as Error).message}). Check the path given to --mcp or BRIDLE_MCP_CONFIG.`,
      { cause: error },
    );
  }
  return parseMcpConfig(text, absolute, options);
}

/**
 * {@link loadMcpConfig} for text already read (e.g. a file the user trusted as it was then: never read
 * again). `file` names it in errors and anchors relative `command` and `cwd` paths.
 */
export function parseMcpConfig(text: string, file: string, options: LoadMcpConfigOptions = {}): McpServerConfig[] {
  const env = options.env ?? process.env;
  const absolute = path.resolve(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${absolute} is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  if (!isObject(parsed) || !isObject(parsed.mcpServers)) {
    throw new ConfigError(
      `${absolute} must be an object with "mcpServers": { "<name>": { "command": ... } | { "url": ... } }, got ${describeValue(isObject(parsed) ? parsed.mcpServers : parsed)}${isObject(parsed) ? ' for "mcpServers"' : ''}.`,
    );
  }
  const folder = path.dirname(absolute);
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(parsed.mcpServers)) {
    const where = `${absolute}: server "${name}"`;
    if (!isObject(raw)) {
      throw new ConfigError(
        `${where} must be an object { "command": ... } or { "url": ... }, got ${describeValue(raw)}.`,
      );
    }
    const picked: Record<string, unknown> = { name };
    for (const key of KNOWN_KEYS)
      if (raw[key] !== undefined) picked[key] = expandDeep(raw[key], env, `${where} "${key}"`);
    checkServerConfig(picked, where);
    const server = picked as McpServerConfig;
    if ('command' in server) {
      server.command = resolveCommand(server.command, folder);
      if (server.cwd !== undefined) server.cwd = path.resolve(folder, server.cwd);
    }
    servers.push(server);
  }
  return servers;
}
