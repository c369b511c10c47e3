import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { ConfigError } from '@bridle/protocol';

/**
 * Resolves a preset's executable to an absolute path once, at creation: an absolute path is
 * checked as is; a bare name is looked up in the absolute entries of `PATH` (relative entries
 * such as "." are ignored, so a file the model wrote can never be picked up). Throws `ConfigError`.
 */
export function resolveExecutable(executable: string, preset: string, searchPath = process.env.PATH ?? ''): string {
  if (executable.includes('/')) {
    if (!isAbsolute(executable)) {
      throw new ConfigError(
        `Preset "${preset}": executable "${executable}" is a relative path; give an absolute path or a bare name found on PATH.`,
      );
    }
    if (!isExecutableFile(executable)) {
      throw new ConfigError(
        `Preset "${preset}": executable "${executable}" does not exist or is not an executable file.`,
      );
    }
    return executable;
  }
  for (const directory of searchPath.split(delimiter)) {
    if (directory === '' || !isAbsolute(directory)) continue;
    const candidate = join(directory, executable);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new ConfigError(
    `Preset "${preset}": executable "${executable}" was not found on PATH; install it or give its absolute path.`,
  );
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
