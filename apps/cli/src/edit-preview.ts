import { diffView } from './diff-view';
import type { Style } from './style';
import { proposedChange } from './workspace-text';

/**
 * The approval question's preview for a workspace at `root` (see `ApproverOptions.preview`): the diff an
 * `edit_file` or `write_file` call would make, shortened in the middle to 40 lines (whole when `full`).
 * Undefined without a workspace.
 */
export function editPreview(
  root: string | undefined,
  style: Style,
): ((name: string, args: unknown, full: boolean) => string | undefined) | undefined {
  if (root === undefined) return undefined;
  return (name, args, full) => {
    const change = proposedChange(root, name, args);
    if (change === undefined) return undefined;
    return (
      diffView(
        change,
        full ? { style, maxLines: Number.POSITIVE_INFINITY, maxLineChars: Number.POSITIVE_INFINITY } : { style },
      ) || undefined
    );
  };
}
