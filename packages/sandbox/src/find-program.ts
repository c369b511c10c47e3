import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The absolute path of an executable file: `name` as given when absolute, else the first match in the
 * absolute entries of `searchPath` (relative entries such as "." are skipped, so a file written in the
 * working directory is never picked). `undefined` when there is none. Never throws.
 */
export function findProgram(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  if (isAbsolute(name)) return isExecutableFile(name) ? name : undefined;
  for (const directory of searchPath.split(delimiter)) {
    if (directory === '' || !isAbsolute(directory)) continue;
    const candidate = join(directory, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
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
