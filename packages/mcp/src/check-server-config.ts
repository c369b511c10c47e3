import { ConfigError, describeValue } from '@bridle/protocol';
import type { McpServerConfig } from './types';

function checkStringRecord(value: unknown, field: string, where: string): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${where}: "${field}" must be an object of strings, got ${describeValue(value)}.`);
  }
  for (const [key, item] of Object.entries(value)) {
    // The value is a secret: never shown.
    if (typeof item !== 'string') throw new ConfigError(`${where}: "${field}.${key}" must be a string.`);
  }
}

/**
 * Checks the shape of one server (as `connectMcp` takes it). `where` names it in errors, e.g.
 * `MCP server "files"` or `/home/me/.mcp.json: server "files"`. Never shows `env` or `headers` values.
 */
export function checkServerConfig(value: unknown, where: string): asserts value is McpServerConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `${where} must be an object { command, args?, env?, cwd? } or { url, headers? }, got ${describeValue(value)}.`,
    );
  }
  const server = value as Record<string, unknown>;
  if (typeof server.name !== 'string' || server.name.trim() === '') {
    throw new ConfigError(`${where}: "name" must be a non-empty string, got ${describeValue(server.name)}.`);
  }
  const type = server.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse') {
    throw new ConfigError(`${where}: "type" must be "stdio", "http" or "sse", got ${describeValue(type)}.`);
  }
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new ConfigError(
      `${where} needs exactly one of "command" (a local server started over stdio) or "url" (a remote server over HTTP)${hasCommand ? ', not both' : ''}.`,
    );
  }
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') {
      throw new ConfigError(
        `${where}: type "${type}" needs a "url", but the server has a "command". Use type "stdio" or give a url.`,
      );
    }
    if (typeof server.command !== 'string' || server.command.trim() === '') {
      throw new ConfigError(
        `${where}: "command" must be a non-empty string (the program to start), got ${describeValue(server.command)}.`,
      );
    }
    if (
      server.args !== undefined &&
      (!Array.isArray(server.args) || server.args.some((arg) => typeof arg !== 'string'))
    ) {
      throw new ConfigError(`${where}: "args" must be an array of strings, got ${describeValue(server.args)}.`);
    }
    if (server.cwd !== undefined && (typeof server.cwd !== 'string' || server.cwd === '')) {
      throw new ConfigError(`${where}: "cwd" must be a non-empty string (a folder), got ${describeValue(server.cwd)}.`);
    }
    checkStringRecord(server.env, 'env', where);
    return;
  }
  if (type === 'stdio') throw new ConfigError(`${where}: type "stdio" needs a "command", but the server has a "url".`);
  if (typeof server.url !== 'string')
    throw new ConfigError(`${where}: "url" must be a string, got ${describeValue(server.url)}.`);
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new ConfigError(
      `${where}: "url" is not a valid URL (${JSON.stringify(server.url.slice(0, 200))}). Write it as http(s)://host[:port]/path.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `${where}: "url" must start with http:// or https://, got ${url.protocol}. MCP remote servers speak HTTP.`,
    );
  }
  checkStringRecord(server.headers, 'headers', where);
}
