import { readFileSync } from 'node:fs';
import { type ConfigError, describeValue } from '@bridle/protocol';

/**
 * Reads a `{ version: 1, folders: { <folder>: <entry> } }` file of the user's config folder (`trusted.json`,
 * `permissions.json`) and gives its folders' raw entries for the caller to check, or `undefined` when the file
 * does not exist. A file that cannot be read, is not JSON or has another shape throws `corrupt(problem)`:
 * such a file is never read as empty, and never silently replaced.
 */
export function readFolderListFile(
  path: string,
  corrupt: (problem: string, cause?: unknown) => ConfigError,
): [folder: string, entry: unknown][] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw corrupt(`cannot be read (${(error as Error).message})`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(`is not valid JSON (${(error as Error).message})`, error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(`must hold an object, not ${describeValue(value)}`);
  const record = value as Record<string, unknown>;
  if (record.version !== 1) throw corrupt(`has version ${describeValue(record.version)}, expected 1`);
  const folders = record.folders;
  if (typeof folders !== 'object' || folders === null || Array.isArray(folders))
    throw corrupt('"folders" must be an object');
  return Object.entries(folders as Record<string, unknown>);
}
