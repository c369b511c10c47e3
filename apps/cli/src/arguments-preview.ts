import { diffView } from './diff-view';
import type { Style } from './style';

/**
 * The approval question's preview when the workspace's files are not at hand (`bridle attach` to a server without
 * `-w`): the diff of an `edit_file` call's own `oldText` and `newText`, or a `write_file` call's content, built from
 * the call's arguments alone (line numbers count within that text), with a line saying so. Undefined for other calls.
 */
export function argumentsPreview(style: Style): (name: string, args: unknown, full: boolean) => string | undefined {
  return (name, args, full) => {
    if (typeof args !== 'object' || args === null) return undefined;
    const { path, content, oldText, newText } = args as Record<string, unknown>;
    if (typeof path !== 'string') return undefined;
    const change =
      name === 'write_file' && typeof content === 'string'
        ? { path, before: undefined, after: content }
        : name === 'edit_file' && typeof oldText === 'string' && typeof newText === 'string'
          ? { path, before: oldText, after: newText }
          : undefined;
    if (change === undefined) return undefined;
    const shown = diffView(
      change,
      full ? { style, maxLines: Number.POSITIVE_INFINITY, maxLineChars: Number.POSITIVE_INFINITY } : { style },
    );
    if (shown === '') return undefined;
    return `${shown}\n${style.dim('  (from the call itself; -w <the server workspace> diffs it against the file)')}`;
  };
}
