import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { type BridleConfig, parseBridleConfig } from './bridle-config';
import { displayText } from './display-text';
import { parseModelId } from './parse-model-id';
import { type ProjectFile, readProjectFile } from './read-project-file';

/** A folder's config file name. */
export const PROJECT_CONFIG_FILE = 'bridle.config.json';
/** A folder's MCP servers file name. */
export const PROJECT_MCP_FILE = '.mcp.json';

/** The files of a folder that act (start processes, choose the model and endpoint), read once. */
export interface ProjectFiles {
  /** The folder's real path (symlinks resolved): the key in `trusted.json`. */
  folder: string;
  config?: ProjectFile;
  mcp?: ProjectFile;
  /** sha256 of exactly these bytes: what the user trusts is what is used. */
  digest: string;
  /** Files that are there but were not read, with why (a symlink out of the folder, ...). */
  refused: { path: string; refused: string }[];
}

/**
 * Reads `bridle.config.json` and `.mcp.json` of a folder once (see `readProjectFile` for what is refused)
 * and digests the bytes read. `undefined` when the folder has neither (nothing to trust).
 */
export function readProjectFiles(folder: string): ProjectFiles | undefined {
  const real = realpathSync(folder);
  const refused: ProjectFiles['refused'] = [];
  const take = (name: string): ProjectFile | undefined => {
    const file = readProjectFile(real, name);
    if (file !== undefined && 'refused' in file) {
      refused.push(file);
      return undefined;
    }
    return file;
  };
  const config = take(PROJECT_CONFIG_FILE);
  const mcp = take(PROJECT_MCP_FILE);
  if (config === undefined && mcp === undefined && refused.length === 0) return undefined;
  const hash = createHash('sha256');
  for (const [name, file] of [
    [PROJECT_CONFIG_FILE, config],
    [PROJECT_MCP_FILE, mcp],
  ] as const) {
    if (file === undefined) continue;
    hash.update(`${name}\u0000${file.bytes.length}\u0000`);
    hash.update(file.bytes);
  }
  return {
    folder: real,
    ...(config === undefined ? {} : { config }),
    ...(mcp === undefined ? {} : { mcp }),
    digest: `sha256:${hash.digest('hex')}`,
    refused,
  };
}

/** The paths of the files read. */
export function projectFilePaths(files: ProjectFiles): string[] {
  return [files.config?.path, files.mcp?.path].filter((path): path is string => path !== undefined);
}

/** The folder's config parsed strictly (a `ConfigError` naming the file and field), or undefined. */
export function projectConfig(files: ProjectFiles): BridleConfig | undefined {
  return files.config === undefined
    ? undefined
    : parseBridleConfig(files.config.bytes.toString('utf8'), files.config.path);
}

/**
 * What the folder's files would do, one line each, for the trust prompt: the model and its endpoint,
 * skills, the workspace, each preset's program and arguments, each MCP server's command or URL, the
 * approval policy, the store and the limits. Workspace text is shown escaped (see `displayText`).
 * Throws `ConfigError` when `bridle.config.json` is invalid (naming the file and field).
 */
export function describeProjectFiles(files: ProjectFiles): string[] {
  const lines: string[] = [];
  const config = projectConfig(files);
  if (config !== undefined) {
    if (config.model !== undefined) {
      const spec = parseModelId(config.model);
      lines.push(`model: ${displayText(config.model)}`);
      lines.push(
        spec.provider === 'openai-compatible'
          ? spec.baseURL === undefined
            ? 'endpoint: your own OPENAI_COMPATIBLE_BASE_URL (prompts and workspace files go there; it gets OPENAI_COMPATIBLE_API_KEY when set)'
            : `endpoint: ${displayText(spec.baseURL)} (prompts and workspace files go there; it gets OPENAI_COMPATIBLE_API_KEY when set)`
          : `endpoint: your own ${spec.provider === 'openai' ? 'OpenAI' : 'Anthropic'} settings (the official API unless your shell sets ${spec.provider === 'openai' ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL'})`,
      );
    }
    if (config.skill !== undefined) lines.push(`skills: ${config.skill.map(displayText).join(', ')}`);
    if (config.workspace !== undefined)
      lines.push(`workspace (read, edit, run commands in): ${displayText(config.workspace)}`);
    for (const [name, preset] of Object.entries(config.presets ?? {})) {
      const params = Object.keys(preset.params ?? {});
      lines.push(
        `command preset ${displayText(name)}: runs ${[preset.executable, ...(preset.args ?? [])].map(displayText).join(' ')}${params.length > 0 ? ` + model-chosen ${params.map(displayText).join(', ')}` : ''}${preset.env?.length ? ` (passes ${preset.env.map(displayText).join(', ')})` : ''}${preset.sandbox ? ' in the sandbox' : ''}`,
      );
    }
    for (const [name, server] of Object.entries(config.mcpServers ?? {})) lines.push(describeServer(name, server));
    if (config.approval !== undefined) {
      const meaning = {
        ask: 'asks before tools that need approval',
        yes: 'runs every tool WITHOUT asking',
        deny: 'denies tools that need approval',
      }[config.approval];
      lines.push(`approval: ${config.approval} (${meaning})`);
    }
    for (const rule of config.permissions?.allow ?? [])
      lines.push(`permission: runs ${displayText(rule)} WITHOUT asking (never on a protected path)`);
    if (config.store !== undefined) lines.push(`store: ${displayText(config.store)}`);
    if (config.maxSteps !== undefined) lines.push(`maxSteps: ${config.maxSteps}`);
    if (config.maxCostUsd !== undefined) lines.push(`maxCostUsd: ${config.maxCostUsd}`);
    if (config.sandbox !== undefined && config.sandbox !== false) {
      const network = typeof config.sandbox === 'object' && config.sandbox.network === true;
      const env = typeof config.sandbox === 'object' ? (config.sandbox.env ?? []) : [];
      lines.push(
        `sandbox: offers the shell tool (bash in bubblewrap, ${network ? 'WITH the network' : 'no network'})${env.length > 0 ? ` (passes ${env.map(displayText).join(', ')})` : ''}`,
      );
    }
    if (lines.length === 0) lines.push(`${displayText(files.config?.path ?? '')}: sets nothing`);
  }
  if (files.mcp !== undefined) lines.push(...describeMcpFile(files.mcp));
  return lines;
}

function describeServer(name: string, server: Record<string, unknown>, from = ''): string {
  if (typeof server.url === 'string')
    return `MCP server ${displayText(name)}${from}: connects to ${displayText(server.url)}`;
  const args = Array.isArray(server.args) ? server.args.map((arg) => displayText(String(arg))) : [];
  const env = typeof server.env === 'object' && server.env !== null ? Object.keys(server.env) : [];
  return `MCP server ${displayText(name)}${from}: starts ${[displayText(String(server.command)), ...args].join(' ')}${env.length > 0 ? ` (env ${env.map(displayText).join(', ')})` : ''}`;
}

function describeMcpFile(file: ProjectFile): string[] {
  let value: unknown;
  try {
    value = JSON.parse(file.bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    return [`${displayText(file.path)}: not valid JSON (${(error as Error).message}); its servers would fail to load`];
  }
  const servers = (value as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    return [`${displayText(file.path)}: no "mcpServers" object`];
  return Object.entries(servers as Record<string, unknown>).map(([name, server]) =>
    typeof server === 'object' && server !== null
      ? describeServer(name, server as Record<string, unknown>, ' (.mcp.json)')
      : `MCP server ${displayText(name)} (.mcp.json): not an object`,
  );
}
