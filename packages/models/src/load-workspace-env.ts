import { realpathSync } from 'node:fs';
import { displayText } from './display-text';
import { isBridleSetting, WORKSPACE_KEY_VARIABLES } from './environment-variables';
import { parseEnvText } from './load-env-file';
import { readProjectFile } from './read-project-file';

/** Options of {@link loadWorkspaceEnv}. */
export interface LoadWorkspaceEnvOptions {
  /** The environment to fill; default `process.env`. Variables already set are never overridden. */
  env?: Record<string, string | undefined>;
  /** Paths of `.env` files already loaded whole (by `--env-file`): not read again as a folder's. */
  except?: readonly string[];
  /** Where the one warning line goes; default `process.stderr`. */
  warn?: (line: string) => void;
}

/** What {@link loadWorkspaceEnv} did. */
export interface LoadWorkspaceEnvResult {
  /** The `.env` files read. */
  files: string[];
  /** API keys set from them (absent from the environment before). */
  loaded: string[];
  /** Bridle settings found in them and ignored (`BRIDLE_*`, `*_BASE_URL`, `HOST`, `PORT`, `OTEL_*`). */
  ignored: string[];
  /** The warning printed, if any (one line for all the folders). */
  warning?: string;
}

/**
 * Reads `.env` in each folder (the working directory, and the workspace when it differs) as the
 * folder's words, not the user's: only API keys (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
 * `OPENAI_COMPATIBLE_API_KEY`) are taken, never overriding what is set. Bridle settings there
 * (`BRIDLE_*`, `*_BASE_URL`, `HOST`, `PORT`, `OTEL_*`) are ignored with ONE warning line naming them
 * and the opt-in (`--env-file`); other variables are left alone silently. A symlinked `.env` that
 * leads outside its folder, a non-regular or oversized one is skipped with a warning; an unreadable
 * one is a `ConfigError`. So a cloned repository can never choose where your keys are sent.
 */
export function loadWorkspaceEnv(
  folders: readonly string[],
  options: LoadWorkspaceEnvOptions = {},
): LoadWorkspaceEnvResult {
  const env = options.env ?? process.env;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const result: LoadWorkspaceEnvResult = { files: [], loaded: [], ignored: [] };
  const notes: string[] = [];
  const ignoredIn: string[] = [];
  const seen = new Set<string>();
  for (const folder of folders) {
    // `-w .` is the working directory again: read each folder once.
    const real = realFolder(folder);
    if (seen.has(real)) continue;
    seen.add(real);
    const file = readProjectFile(folder, '.env');
    if (file === undefined || options.except?.includes(file.path)) continue;
    if ('refused' in file) {
      notes.push(`${displayText(file.path)} was not read: ${file.refused}`);
      continue;
    }
    result.files.push(file.path);
    const ignoredHere: string[] = [];
    for (const [name, value] of Object.entries(parseEnvText(file.bytes))) {
      if (WORKSPACE_KEY_VARIABLES.includes(name)) {
        if (env[name] === undefined) {
          env[name] = value;
          result.loaded.push(name);
        }
      } else if (isBridleSetting(name)) {
        ignoredHere.push(name);
        result.ignored.push(name);
      }
    }
    if (ignoredHere.length > 0)
      ignoredIn.push(`${ignoredHere.map(displayText).join(', ')} in ${displayText(file.path)}`);
  }
  if (ignoredIn.length > 0) {
    const files = result.files.filter((path) => ignoredIn.some((entry) => entry.endsWith(` in ${displayText(path)}`)));
    notes.unshift(
      `ignored ${ignoredIn.join('; ')}: a folder's .env may set only API keys (${WORKSPACE_KEY_VARIABLES.join(', ')}); to use the rest, set them in your shell or pass ${files.map((path) => `--env-file ${displayText(path)}`).join(' ')}`,
    );
  }
  if (notes.length > 0) {
    result.warning = `bridle: ${notes.join('; ')}`;
    warn(result.warning);
  }
  return result;
}

function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
