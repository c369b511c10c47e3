import { displayText } from '@bridle/models';
// The one module of `diff` this needs (and its three imports), not the package's index of 19 modules: every `bridle
// run` loads this file, and each module read costs start-up time.
import { structuredPatch } from 'diff/lib/patch/create.js';
import type { Style } from './style';
import type { FileChange } from './workspace-text';

/** Options of {@link diffView}. */
export interface DiffViewOptions {
  style: Style;
  /** Most lines shown; a longer diff keeps its start and end with `… N more lines …` between. Default 40. */
  maxLines?: number;
  /** Longest line shown whole; a longer one keeps its start and end with `…[N characters]…` between. Default 200. */
  maxLineChars?: number;
  /** Lines of context around each change; default 3. */
  context?: number;
}

/**
 * A unified diff of `change` for the terminal (the `diff` package's hunks): `--- path` / `+++ path` headers, `@@`
 * hunk lines in cyan, removed lines red, added green; a new file is all added lines. Control characters in the
 * text are escaped (it comes from the model). No trailing newline; '' when nothing changes.
 */
export function diffView(change: FileChange, options: DiffViewOptions): string {
  const { style } = options;
  const maxLines = options.maxLines ?? 40;
  const maxLineChars = options.maxLineChars ?? 200;
  const path = displayText(change.path);
  const patch = structuredPatch(path, path, change.before ?? '', change.after, '', '', {
    context: options.context ?? 3,
  });
  if (patch.hunks.length === 0) return '';
  const body: string[] = [];
  for (const hunk of patch.hunks) {
    // As `diff`'s own formatPatch (and GNU diff): an empty side starts at the line before, 0 for an empty file.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    body.push(style.cyan(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      const text = displayText(shortLine(line, maxLineChars));
      body.push(line.startsWith('+') ? style.green(text) : line.startsWith('-') ? style.red(text) : text);
    }
  }
  const header =
    change.before === undefined
      ? [style.bold(`+++ ${path} (new file)`)]
      : [style.bold(`--- ${path}`), style.bold(`+++ ${path}`)];
  return [...header, ...shortened(body, maxLines, style)].join('\n');
}

/** `line`, or its start and end with the count of the characters left out between. */
function shortLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const keep = Math.floor(max / 2);
  return `${line.slice(0, keep)}…[${line.length - 2 * keep} characters]…${line.slice(line.length - keep)}`;
}

/** `lines`, or its first and last lines with a count of the ones left out between. */
function shortened(lines: string[], maxLines: number, style: Style): string[] {
  if (lines.length <= maxLines) return lines;
  const head = Math.ceil((maxLines - 1) / 2);
  const tail = maxLines - 1 - head;
  const left = lines.length - head - tail;
  return [...lines.slice(0, head), style.dim(`… ${left} more lines …`), ...lines.slice(lines.length - tail)];
}
