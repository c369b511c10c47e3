import type { CliOutput } from './cli-io';
import type { StreamedMarkdown } from './streamed-markdown';
import type { Style } from './style';

/**
 * How the CLI renders the model's Markdown on stdout: a factory of one {@link StreamedMarkdown} per step stream, or
 * undefined for plain text. Rendered only on a TTY with colour on (not with `NO_COLOR`, `TERM=dumb`, a pipe or a
 * file, whatever `FORCE_COLOR` says), so scripts get the text as the model wrote it.
 */
export async function markdownFor(stdout: CliOutput, style: Style): Promise<(() => StreamedMarkdown) | undefined> {
  if (stdout.isTTY !== true || !style.enabled) return undefined;
  // Loaded only here, for a terminal: importing marked-terminal (cli-highlight loads every highlight.js language)
  // took 0.8 s on the development machine, which a piped or --json run should not pay.
  const [{ createTerminalMarkdown }, { createStreamedMarkdown }] = await Promise.all([
    import('./terminal-markdown'),
    import('./streamed-markdown'),
  ]);
  const render = createTerminalMarkdown(stdout.columns === undefined ? {} : { width: stdout.columns });
  return () => createStreamedMarkdown(render);
}
