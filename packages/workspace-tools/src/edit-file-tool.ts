import type { Tool } from '@bridle/protocol';
import { expectArguments, invalidArguments, stringArgument } from './check-arguments';
import { decodeText } from './decode-text';
import { parsePath } from './path-rules';
import { WorkspaceError } from './workspace-error';
import type { WorkspaceOperations } from './workspace-operations';

/** Arguments of `edit_file`. */
export interface EditFileArguments {
  path: string;
  oldText: string;
  newText: string;
}

const NAME = 'edit_file';

/**
 * `edit_file {path, oldText, newText}`: replaces the one occurrence of `oldText` with `newText`,
 * literally (no `$&` or other pattern expansion). Refuses when `oldText` occurs zero or several
 * times (overlapping occurrences count), saying how many; then nothing is written.
 */
export function editFileTool(operations: WorkspaceOperations): Tool<EditFileArguments, string> {
  return {
    name: NAME,
    description:
      'Replace exactly one occurrence of oldText with newText in a text file inside the workspace. oldText must match exactly once, whitespace included: add surrounding lines to make it unique.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the workspace root.' },
        oldText: { type: 'string', minLength: 1, description: 'The exact text to replace; must occur exactly once.' },
        newText: { type: 'string', description: 'The replacement text, inserted literally.' },
      },
      required: ['path', 'oldText', 'newText'],
      additionalProperties: false,
    },
    async execute(input) {
      const args = expectArguments(NAME, input, ['path', 'oldText', 'newText']);
      const path = stringArgument(NAME, args, 'path', { required: true });
      const oldText = stringArgument(NAME, args, 'oldText', { required: true });
      const newText = stringArgument(NAME, args, 'newText', { required: true, allowEmpty: true });
      if (oldText === newText)
        throw invalidArguments(NAME, 'oldText and newText are identical, so there is nothing to change');
      const relative = parsePath(path).join('/');
      const original = await operations.readFile(path);
      const text = decodeText(original, relative);
      const positions = occurrences(text, oldText);
      if (positions.length !== 1) {
        throw new WorkspaceError(
          'match_count',
          positions.length === 0
            ? `Refused: oldText was not found in "${relative}". Read the file and copy the exact text, whitespace and line endings included.`
            : `Refused: oldText occurs ${positions.length} times in "${relative}". Include more surrounding text so it matches exactly once.`,
        );
      }
      const at = positions[0]!;
      // Plain concatenation: String.prototype.replace would expand `$&` and friends in newText.
      const updated = text.slice(0, at) + newText + text.slice(at + oldText.length);
      // Compare and swap: a change made by someone else since the read is refused, never overwritten.
      const result = await operations.writeFile(path, updated, { expectedContent: original });
      return `Edited ${result.path}: replaced 1 occurrence (${result.bytes} bytes now).`;
    },
  };
}

/** Start offsets of every occurrence, overlapping ones included (stops counting at 1000). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1 && found.length < 1000; at = text.indexOf(needle, at + 1)) {
    found.push(at);
  }
  return found;
}
