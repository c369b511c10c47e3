import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { type BridleConfig, parseBridleConfig } from './bridle-config';
import { bridleConfigDir } from './config-dir';
import type { Environment } from './default-model-id';
import { displayText } from './display-text';
import {
  describeProjectFiles,
  type ProjectFiles,
  projectConfig,
  projectFilePaths,
  readProjectFiles,
} from './project-files';
import { readTrustList, type TrustDecision, updateTrustList } from './trust-store';

/** What the trust prompt shows: a folder, its files, what they would do. */
export interface TrustReview {
  /** The folder's real path. */
  folder: string;
  /** The files that would apply. */
  files: string[];
  /** What they would do, one line each (workspace text escaped). */
  lines: string[];
  /** The earlier answer for this folder, when the files changed since. */
  previous?: TrustDecision;
}

/** Options of {@link loadProjectConfig}. */
export interface LoadProjectConfigOptions {
  /** The folders the user runs in: the working directory, and the workspace when given. */
  folders: readonly string[];
  /** The shell's environment (for `XDG_CONFIG_HOME` / `HOME`); default `process.env`. */
  env?: Environment;
  /** The user's config folder; default {@link bridleConfigDir}. */
  configDir?: string;
  /** `--trust-project`: trust the folders for this run, without asking or remembering. */
  trustProject?: boolean;
  /**
   * Asks the user (a TTY prompt) whether to trust a folder; the answer is remembered. Without it
   * (no TTY) an unremembered folder's files are ignored with a warning naming `--trust-project`.
   */
  ask?: (review: TrustReview) => Promise<boolean>;
  /** Where warnings go, one line each; default `process.stderr`. */
  warn?: (line: string) => void;
}

/** How a folder with project files was decided. */
export type FolderTrust = 'flag' | 'remembered' | 'answered' | 'declined' | 'declined-before' | 'not-asked';

/** A folder that has project files, and what became of them. */
export interface ProjectFolder {
  folder: string;
  files: string[];
  trusted: boolean;
  how: FolderTrust;
}

/** The settings from config files, after trust. */
export interface ProjectConfig {
  /** The user's config merged with the trusted folders' (a folder's wins; presets and MCP servers merge by name). */
  config: BridleConfig;
  /** The config files applied, in order (the user's first). */
  files: string[];
  /**
   * The trusted folders' `.mcp.json`: the path and the text that was read once and trusted. Parse this
   * text (never read the path again: the file may have changed since the user trusted it).
   */
  mcpFiles: { path: string; text: string }[];
  /** Every folder that has project files, trusted or not. */
  folders: ProjectFolder[];
}

/** `config.json` in the user's config folder. */
export function userConfigPath(configDir: string): string {
  return join(configDir, 'config.json');
}

/** `trusted.json` in the user's config folder. */
export function trustListPath(configDir: string): string {
  return join(configDir, 'trusted.json');
}

/**
 * Loads the config files through workspace trust. The user's `config.json` always applies. A folder's
 * `bridle.config.json` and `.mcp.json` (which can change the model and endpoint, start processes and
 * loosen approvals) apply only when the folder is trusted: by `trustProject`, by an answer remembered in
 * `trusted.json` for exactly these files (same digest), or by the user's answer to `ask` (remembered:
 * yes or no). An edited file asks again. Otherwise they are ignored with one warning per folder that
 * names `--trust-project`. Each file is read once; what is shown, digested and applied is the same
 * bytes. Throws `ConfigError` for an invalid config file that would apply (naming the file and field)
 * and for a corrupt `trusted.json` (never read as "trust everything").
 */
export async function loadProjectConfig(options: LoadProjectConfigOptions): Promise<ProjectConfig> {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const configDir = options.configDir ?? bridleConfigDir(options.env ?? process.env);
  const result: ProjectConfig = { config: {}, files: [], mcpFiles: [], folders: [] };
  const userPath = userConfigPath(configDir);
  const userText = readUserConfig(userPath);
  if (userText !== undefined) {
    result.config = parseBridleConfig(userText, userPath);
    result.files.push(userPath);
  }
  const seen = new Set<string>();
  for (const folder of options.folders) {
    const real = realpathSync(folder);
    if (seen.has(real)) continue;
    seen.add(real);
    const files = readProjectFiles(real);
    if (files === undefined) continue;
    for (const entry of files.refused) warn(`bridle: ignored ${displayText(entry.path)}: ${entry.refused}`);
    const paths = projectFilePaths(files);
    if (paths.length === 0) continue;
    const decision = await decide(files, paths, configDir, options, warn);
    result.folders.push({ folder: real, files: paths, trusted: decision.trusted, how: decision.how });
    if (!decision.trusted) continue;
    const config = projectConfig(files);
    if (config !== undefined && files.config) {
      result.config = mergeConfig(result.config, config);
      result.files.push(files.config.path);
    }
    if (files.mcp !== undefined) result.mcpFiles.push({ path: files.mcp.path, text: files.mcp.bytes.toString('utf8') });
  }
  return result;
}

async function decide(
  files: ProjectFiles,
  paths: string[],
  configDir: string,
  options: LoadProjectConfigOptions,
  warn: (line: string) => void,
): Promise<{ trusted: boolean; how: FolderTrust }> {
  if (options.trustProject) {
    projectConfig(files); // an invalid file is an error before anything runs
    return { trusted: true, how: 'flag' };
  }
  const listPath = trustListPath(configDir);
  const previous = readTrustList(listPath).folders[files.folder];
  const names = paths.map(displayText).join(', ');
  const folder = displayText(files.folder);
  if (previous?.digest === files.digest) {
    if (previous.trusted) return { trusted: true, how: 'remembered' };
    warn(
      `bridle: ignored ${names}: you declined to trust ${folder} with these files. Trust it with \`bridle trust ${folder}\`, or pass --trust-project for this run.`,
    );
    return { trusted: false, how: 'declined-before' };
  }
  if (options.ask === undefined) {
    warn(
      `bridle: ignored ${names}: the folder is not trusted${previous ? ' (its files changed since you answered)' : ''} and there is no terminal to ask. They can change the model and endpoint, start processes and approve tools: pass --trust-project to use them for this run, or run \`bridle trust ${folder}\` after reviewing them.`,
    );
    return { trusted: false, how: 'not-asked' };
  }
  const review: TrustReview = {
    folder: files.folder,
    files: paths,
    lines: describeProjectFiles(files),
    ...(previous ? { previous } : {}),
  };
  const trusted = await options.ask(review);
  try {
    await updateTrustList(listPath, (list) => {
      list.folders[files.folder] = { digest: files.digest, trusted, decidedAt: new Date().toISOString() };
    });
  } catch (error) {
    // A corrupt list is an error (never overwritten); a read-only config folder only costs the memory.
    if (ConfigError.isInstance(error)) throw error;
    warn(`bridle: could not remember the answer in ${displayText(listPath)}: ${(error as Error).message}`);
  }
  if (!trusted) warn(`bridle: ignored ${names} for this run (not trusted).`);
  return { trusted, how: trusted ? 'answered' : 'declined' };
}

function readUserConfig(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read your config ${path}: ${(error as Error).message}. Fix its permissions.`, {
      cause: error,
    });
  }
}

/** `over` wins field by field; presets and MCP servers merge by name; permission rules add up. */
export function mergeConfig(base: BridleConfig, over: BridleConfig): BridleConfig {
  const merged: BridleConfig = { ...base, ...over };
  if (base.presets || over.presets) merged.presets = { ...base.presets, ...over.presets };
  if (base.mcpServers || over.mcpServers) merged.mcpServers = { ...base.mcpServers, ...over.mcpServers };
  // Rules add up: the user's and each trusted folder's.
  if (base.permissions || over.permissions)
    merged.permissions = { allow: [...(base.permissions?.allow ?? []), ...(over.permissions?.allow ?? [])] };
  return merged;
}
