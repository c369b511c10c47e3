import { type EventStyle, formatEvent, type Stylize } from './format-event';
import type { EventObserver, RunEvent } from './types';

/** Options of {@link consoleSink}. */
export interface ConsoleSinkOptions {
  /** Where lines go. Default `process.stderr` (stdout stays free for the answer). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** ANSI colors. Default: on when the stream is a TTY and `NO_COLOR` is unset or empty. */
  color?: boolean;
}

// Plain SGR codes: util.styleText decides by itself whether to color (by process.stdout and env) on some
// Node 20 releases, but here the caller's stream and option decide.
const ANSI: Record<EventStyle, readonly [number, number]> = {
  dim: [2, 22],
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};
const colorize: Stylize = (style, text) => `\u001b[${ANSI[style][0]}m${text}\u001b[${ANSI[style][1]}m`;
const plain: Stylize = (_style, text) => text;

/** Whether colors are on by default for `stream`: a TTY, and `NO_COLOR` unset or empty (https://no-color.org). */
export function defaultColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/**
 * An observer that prints one compact, readable line per event (`text_delta` is not shown), e.g.
 * `step 1 · read_file ok in 3ms: hello`. Model and tool text is cut short and control characters are
 * escaped, so no terminal escape sequence gets through. Never throws (a failing stream is ignored).
 */
export function consoleSink(options: ConsoleSinkOptions = {}): EventObserver {
  const stream = options.stream ?? process.stderr;
  const style = (options.color ?? defaultColor(stream)) ? colorize : plain;
  return (event: RunEvent) => {
    try {
      const line = formatEvent(event, style);
      if (line !== undefined) stream.write(`${line}\n`);
    } catch {
      // A closed or broken stream must not change the run.
    }
  };
}
