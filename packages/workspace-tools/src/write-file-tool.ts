import type { Tool } from '@bridle/protocol';
import { expectArguments, stringArgument } from './check-arguments';
import type { WorkspaceOperations } from './workspace-operations';

/** Arguments of `write_file`. */
export interface WriteFileArguments {
  path: string;
  content: string;
}

const NAME = 'write_file';

/**
 * `write_file {path, content}`: creates or replaces a text file inside the workspace atomically,
 * creating missing parent directories inside the root. Returns a one-line summary.
 */
export function writeFileTool(operations: WorkspaceOperations): Tool<WriteFileArguments, string> {
  return {
    name: NAME,
    description:
      'Create or overwrite a text file inside the workspace with the given content (UTF-8). Missing parent directories are created.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the workspace root.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async execute(input) {
      const args = expectArguments(NAME, input, ['path', 'content']);
      const path = stringArgument(NAME, args, 'path', { required: true });
      const content = stringArgument(NAME, args, 'content', { required: true, allowEmpty: true });
      const result = await operations.writeFile(path, content);
      return `${result.created ? 'Created' : 'Wrote'} ${result.path} (${result.bytes} bytes).`;
    },
  };
}
