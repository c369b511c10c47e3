import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { bridleConfigDir } from './config-dir';
import { type LoadEnvFileResult, loadEnvFile } from './load-env-file';
import { loadProjectConfig, type ProjectConfig, type TrustReview } from './load-project-config';
import { type LoadWorkspaceEnvResult, loadWorkspaceEnv } from './load-workspace-env';

/** Options of {@link loadProject}. */
export interface LoadProjectOptions {
  /** The working directory. */
  cwd: string;
  /** `-w DIR` when given (relative to `cwd`): its files count as the folder's too. */
  workspace?: string;
  /** The environment to fill (the shell's); default `process.env`. Variables already set always win. */
  env?: Record<string, string | undefined>;
  /** `--env-file` paths (relative to `cwd`): loaded whole, because the user named them. */
  envFiles?: readonly string[];
  /** `--trust-project`: the folders' config files apply for this run, without asking or remembering. */
  trustProject?: boolean;
  /** The TTY prompt; omit it without a terminal. */
  ask?: (review: TrustReview) => Promise<boolean>;
  /** Where warnings go, one line each; default `process.stderr`. */
  warn?: (line: string) => void;
  /** The user's config folder; default {@link bridleConfigDir} of the shell's environment. */
  configDir?: string;
}

/** Everything an app takes from files, after trust. */
export interface ProjectSettings extends ProjectConfig {
  /** The user's config folder used (holds `config.json` and `trusted.json`). */
  configDir: string;
  /** The `--env-file` files loaded. */
  envFiles: LoadEnvFileResult[];
  /** What the folders' `.env` gave (keys only) and what it ignored. */
  workspaceEnv: LoadWorkspaceEnvResult;
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * The one door through which the apps read files from the user's folders and config folder:
 * `--env-file` files (whole), the folders' `.env` (API keys only, one warning for the rest), the user's
 * `config.json` (always) and the folders' `bridle.config.json` / `.mcp.json` (only once trusted).
 * The folders are `cwd` and the workspace. Shell variables are never overridden; flags are applied by
 * the caller on top (precedence: flags > shell environment > config files > defaults).
 */
export async function loadProject(options: LoadProjectOptions): Promise<ProjectSettings> {
  const env = options.env ?? process.env;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  // From the shell, before any file could add XDG_CONFIG_HOME or HOME.
  const configDir = options.configDir ?? bridleConfigDir(env);
  const envFiles = (options.envFiles ?? []).map((file) => loadEnvFile(resolve(options.cwd, file), { env }));
  const folders = [options.cwd];
  if (options.workspace !== undefined) {
    const workspace = resolve(options.cwd, options.workspace);
    if (isFolder(workspace)) folders.push(workspace);
  }
  const workspaceEnv = loadWorkspaceEnv(folders, { env, warn, except: envFiles.map((file) => file.path) });
  const config = await loadProjectConfig({
    folders,
    configDir,
    warn,
    ...(options.trustProject === undefined ? {} : { trustProject: options.trustProject }),
    ...(options.ask === undefined ? {} : { ask: options.ask }),
  });
  return { ...config, configDir, envFiles, workspaceEnv };
}
