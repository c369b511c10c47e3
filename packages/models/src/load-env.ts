import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { parse } from 'dotenv';

/** Options of {@link loadEnv}. */
export interface LoadEnvOptions {
  /** The environment to fill; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** File name inside `cwd`; default `.env`. */
  file?: string;
}

/** What {@link loadEnv} did. */
export interface LoadEnvResult {
  /** The file read, or undefined when there was none. */
  path?: string;
  /** Names set from the file (absent from the environment before). */
  loaded: string[];
  /** Names in the file that were already set, so left untouched. */
  skipped: string[];
}

/**
 * Reads `.env` in `cwd` (dotenv syntax, parsed by `dotenv`: `export` prefixes, quotes, multi-line values,
 * comments; a malformed line is skipped without losing the lines after it) into the environment. Never
 * overrides a variable that is already set. A missing file is not an error; an unreadable one is a
 * `ConfigError` naming the path.
 */
export function loadEnv(cwd: string = process.cwd(), options: LoadEnvOptions = {}): LoadEnvResult {
  const env = options.env ?? process.env;
  const path = join(cwd, options.file ?? '.env');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { loaded: [], skipped: [] };
    throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}. Fix its permissions or remove it.`, {
      cause: error,
    });
  }
  const loaded: string[] = [];
  const skipped: string[] = [];
  for (const [name, value] of Object.entries(parse(text))) {
    if (env[name] !== undefined) skipped.push(name);
    else {
      env[name] = value;
      loaded.push(name);
    }
  }
  return { path, loaded, skipped };
}
