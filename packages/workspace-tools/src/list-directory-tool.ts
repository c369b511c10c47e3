import type { Tool } from '@bridle/protocol';
import { expectArguments, stringArgument } from './check-arguments';
import type { DirectoryEntry, WorkspaceOperations } from './workspace-operations';

/** Arguments of `list_directory`. */
export interface ListDirectoryArguments {
  path?: string;
}

const NAME = 'list_directory';

/**
 * `list_directory {path?}`: the entries of a directory (the root for `"."` or omitted), one per
 * line: `name/` for directories, `name (N bytes)` for files, `name@` for symlinks (never followed).
 * At most `maxEntries` entries (default 1000). Read-only.
 */
export function listDirectoryTool(
  operations: WorkspaceOperations,
  options: { maxEntries?: number } = {},
): Tool<ListDirectoryArguments, string> {
  const maxEntries = options.maxEntries ?? 1000;
  return {
    name: NAME,
    description: 'List the entries of a directory inside the workspace. Omit path (or use ".") for the root.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory path relative to the workspace root; "." for the root.' },
      },
      additionalProperties: false,
    },
    readOnly: true,
    async execute(input) {
      const args = expectArguments(NAME, input ?? {}, ['path']);
      const path = stringArgument(NAME, args, 'path', { required: false, allowEmpty: true });
      const listing = await operations.listDirectory(path, maxEntries);
      if (listing.entries.length === 0) return `Directory "${listing.path}" is empty.`;
      const lines = listing.entries.map(formatEntry);
      if (listing.truncated) lines.push(`[listing stopped after ${maxEntries} entries]`);
      return lines.join('\n');
    },
  };
}

function formatEntry(entry: DirectoryEntry): string {
  switch (entry.type) {
    case 'directory':
      return `${entry.name}/`;
    case 'file':
      return `${entry.name} (${entry.size} bytes)`;
    case 'symlink':
      return `${entry.name}@ (symlink, not followed)`;
    default:
      return `${entry.name} (special file)`;
  }
}
