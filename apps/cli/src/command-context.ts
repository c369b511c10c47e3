import type { CliIO } from './cli-io';
import type { Style } from './style';

/** What every command gets: the IO, styles for each stream, and where to put its exit code. */
export interface CommandContext {
  io: CliIO;
  /** Colours for stdout (off with NO_COLOR or when not a TTY). */
  outputStyle: Style;
  /** Colours for stderr. */
  errorStyle: Style;
  /** The process exit code once the command's action returns. */
  setExitCode(code: number): void;
}
