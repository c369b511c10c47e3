import type { Tool } from '@bridle/protocol';
import { expectArguments, invalidArguments, positiveIntegerArgument, stringArgument } from './check-arguments';
import { decodeText } from './decode-text';
import { parsePath } from './path-rules';
import type { WorkspaceOperations } from './workspace-operations';

/** Arguments of `read_file`. Lines are 1-based and inclusive. */
export interface ReadFileArguments {
  path: string;
  startLine?: number;
  endLine?: number;
}

const NAME = 'read_file';

/**
 * `read_file {path, startLine?, endLine?}`: the text of a file inside the workspace, optionally
 * only a line range (`endLine` past the end is clamped). Refuses binary files and files over the
 * workspace's read limit. Read-only.
 */
export function readFileTool(operations: WorkspaceOperations): Tool<ReadFileArguments, string> {
  return {
    name: NAME,
    description:
      'Read a UTF-8 text file inside the workspace. Optionally give startLine and endLine (1-based, inclusive) to read part of it.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the workspace root, e.g. "src/index.ts".' },
        startLine: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
        endLine: { type: 'integer', minimum: 1, description: 'Last line to return (inclusive).' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    async execute(input) {
      const args = expectArguments(NAME, input, ['path', 'startLine', 'endLine']);
      const path = stringArgument(NAME, args, 'path', { required: true });
      const startLine = positiveIntegerArgument(NAME, args, 'startLine');
      const endLine = positiveIntegerArgument(NAME, args, 'endLine');
      if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
        throw invalidArguments(NAME, `endLine (${endLine}) is before startLine (${startLine})`);
      }
      const relative = parsePath(path).join('/');
      const text = decodeText(await operations.readFile(path), relative);
      if (startLine === undefined && endLine === undefined) return text;
      return sliceLines(text, relative, startLine ?? 1, endLine);
    },
  };
}

function sliceLines(text: string, relative: string, startLine: number, endLine: number | undefined): string {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  if (startLine > lines.length) {
    throw invalidArguments(
      NAME,
      `startLine ${startLine} is past the end of "${relative}", which has ${lines.length} line${lines.length === 1 ? '' : 's'}`,
    );
  }
  return lines.slice(startLine - 1, endLine ?? lines.length).join('\n');
}
