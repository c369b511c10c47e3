import { createInterface, type Interface } from 'node:readline';
import type { CliIO } from './cli-io';

/** Lines a person types while a command follows something: see {@link typedInput}. */
export interface TypedInput {
  /** Stops reading (while a question reads the terminal itself). */
  pause(): void;
  /** Reads again after {@link pause}. */
  resume(): void;
  /** Stops reading for good (so the process can exit). */
  close(): void;
}

/**
 * Calls `onLine` with each non-empty line typed on the terminal (standard input, in the terminal's own line mode:
 * it echoes and edits the line; Ctrl-C stays the terminal's signal). Paused while a question reads the terminal.
 */
export function typedInput(io: CliIO, onLine: (line: string) => void): TypedInput {
  let lines: Interface | undefined;
  let closed = false;
  const open = () => {
    if (closed || lines) return;
    lines = createInterface({ input: io.stdin, terminal: false });
    lines.on('line', (line) => {
      if (line.trim() !== '') onLine(line.trim());
    });
  };
  const stop = () => {
    lines?.close();
    lines = undefined;
  };
  open();
  return {
    pause: stop,
    resume: open,
    close() {
      closed = true;
      stop();
    },
  };
}
