import type { CliIO } from './cli-io';
import type { LiveRegion } from './live-region';
import type { Style } from './style';

/**
 * The live region for a run's output, or undefined when the output is not a person's colour terminal: only when
 * stdout and stderr are both a TTY and the answer is rendered as Markdown (`markdownOn`; so never with `NO_COLOR`,
 * `TERM=dumb`, `--json` or a pipe). Loaded on demand: log-update is not needed for piped runs.
 */
export async function liveRegionFor(io: CliIO, style: Style, markdownOn: boolean): Promise<LiveRegion | undefined> {
  if (!markdownOn || io.stdout.isTTY !== true || io.stderr.isTTY !== true) return undefined;
  const { createLiveRegion } = await import('./live-region');
  return createLiveRegion({ stream: io.stderr, style });
}
