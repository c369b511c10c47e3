import { createInterface } from 'node:readline';
import { answerOnKey } from './answer-on-key';
import type { CliIO } from './cli-io';

/** Asks questions on the terminal: see {@link terminalQuestions}. */
export interface TerminalQuestions {
  /**
   * Writes `question` to stderr and resolves with the answer: one of `keys` as soon as it is typed, else the line
   * typed (undefined at end of input or on Ctrl-C).
   */
  ask(question: string, keys?: readonly string[]): Promise<string | undefined>;
  /** Stops reading the terminal (call once the run is over, so the process can exit). */
  close(): void;
}

/** Whether a person can answer questions: stdin and stderr are both a terminal. */
export function canAskQuestions(io: CliIO): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}

/**
 * Questions on stderr answered on stdin, for `run` and `resume`; undefined when {@link canAskQuestions}
 * is false. The terminal is read (in raw mode, for single keys) only while a question is open: between
 * questions Ctrl-C is the terminal's own signal. Ctrl-C at a question calls `onInterrupt` (the command stops
 * as on any other Ctrl-C) before the question is answered with nothing, so no further call starts.
 */
export function terminalQuestions(io: CliIO, onInterrupt?: () => void): TerminalQuestions | undefined {
  if (!canAskQuestions(io)) return undefined;
  let ended = false;
  let open: (() => void) | undefined;
  return {
    ask(question, keys = []) {
      // Readline draws its prompt line itself (and redraws it on each key): the lines above go out first.
      const lastBreak = question.lastIndexOf('\n');
      io.stderr.write(question.slice(0, lastBreak + 1));
      if (ended) {
        io.stderr.write(`${question.slice(lastBreak + 1)}\n`);
        return Promise.resolve(undefined);
      }
      const lines = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
      const stopKeys = answerOnKey(lines, io.stdin, keys);
      return new Promise((resolve) => {
        let settled = false;
        const finish = (answer: string | undefined) => {
          if (settled) return;
          settled = true;
          open = undefined;
          stopKeys();
          lines.close();
          resolve(answer);
        };
        open = () => finish(undefined);
        lines.on('SIGINT', () => {
          io.stderr.write('\n');
          if (onInterrupt) onInterrupt();
          else process.kill(process.pid, 'SIGINT');
          finish(undefined);
        });
        lines.on('close', () => {
          if (settled) return;
          ended = true;
          io.stderr.write('\n');
          finish(undefined);
        });
        lines.question(question.slice(lastBreak + 1), (answer) => finish(answer));
      });
    },
    close() {
      open?.();
    },
  };
}
