import { readFileSync } from 'node:fs';
import { ConfigError } from '@bridle/protocol';
import { parse } from 'dotenv';

/** What {@link loadEnvFile} did. */
export interface LoadEnvFileResult {
  /** The file read. */
  path: string;
  /** Names set from the file (absent from the environment before). */
  loaded: string[];
  /** Names in the file that were already set, so left untouched. */
  skipped: string[];
}

/**
 * Parses `.env` text (dotenv syntax, parsed by `dotenv`: `export` prefixes, quotes, multi-line values,
 * comments; a malformed line is skipped without losing the lines after it).
 */
export function parseEnvText(text: string | Buffer): Record<string, string> {
  return parse(text);
}

/**
 * Loads every variable of a file the user named (`--env-file <path>`) into `env`, never overriding a
 * variable that is already set (shell variables win). The user chose this file, so it may set
 * anything: model, base URLs, server settings. A missing or unreadable file is a `ConfigError` naming it.
 */
export function loadEnvFile(
  path: string,
  options: { env?: Record<string, string | undefined> } = {},
): LoadEnvFileResult {
  const env = options.env ?? process.env;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `Cannot read the --env-file ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}. Give the path of an existing .env file.`,
      { cause: error },
    );
  }
  const loaded: string[] = [];
  const skipped: string[] = [];
  for (const [name, value] of Object.entries(parseEnvText(text))) {
    if (env[name] !== undefined) skipped.push(name);
    else {
      env[name] = value;
      loaded.push(name);
    }
  }
  return { path, loaded, skipped };
}
