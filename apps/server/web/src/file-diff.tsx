import { diffLines } from 'diff';

/** Lines of a change, each with its kind. */
function lines(before: string, after: string): { kind: 'added' | 'removed' | 'same'; text: string }[] {
  const out: { kind: 'added' | 'removed' | 'same'; text: string }[] = [];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of part.value.replace(/\n$/, '').split('\n')) out.push({ kind, text });
  }
  return out;
}

/**
 * What an `edit_file` (`oldText` → `newText`) or `write_file` (`content`, all added) call changes in `path`,
 * as a line diff (the `diff` library's `diffLines`).
 */
export function FileDiff({ path, before, after }: { path: string; before: string; after: string }) {
  return (
    <figure class="diff">
      <figcaption class="mono">{path}</figcaption>
      <pre>
        {lines(before, after).map((line, index) => (
          <span key={index} class={`diff-line diff-${line.kind}`}>
            {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

/** The diff of a file-changing call, or undefined for other calls (or arguments of another shape). */
export function fileChange(name: string, args: unknown): { path: string; before: string; after: string } | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const values = args as Record<string, unknown>;
  if (typeof values.path !== 'string') return undefined;
  if (name === 'edit_file' && typeof values.oldText === 'string' && typeof values.newText === 'string')
    return { path: values.path, before: values.oldText, after: values.newText };
  if (name === 'write_file' && typeof values.content === 'string')
    return { path: values.path, before: '', after: values.content };
  return undefined;
}
