import { createInterface, type Interface } from 'node:readline';
import type { CliIO } from './cli-io';

/** Asks questions on the terminal: see {@link terminalQuestions}. */
export interface TerminalQuestions {
  /** Writes `question` to stderr and resolves with the next line typed (undefined at end of input). */
  ask(question: string): Promise<string | undefined>;
  /** Stops reading the terminal (call once the run is over, so the process can exit). */
  close(): void;
}

/** Whether a person can answer questions: stdin and stderr are both a terminal. */
export function canAskQuestions(io: CliIO): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}

/**
 * Questions on stderr answered on stdin, for `run` and `resume`; undefined when {@link canAskQuestions}
 * is false. stdin is read only while a question is open.
 */
export function terminalQuestions(io: CliIO): TerminalQuestions | undefined {
  if (!canAskQuestions(io)) return undefined;
  let reader: Interface | undefined;
  let ended = false;
  return {
    ask(question) {
      io.stderr.write(question);
      if (ended) return Promise.resolve(undefined);
      reader ??= createInterface({ input: io.stdin, terminal: false });
      const lines = reader;
      return new Promise((resolve) => {
        const onLine = (line: string) => {
          lines.off('close', onClose);
          lines.pause();
          resolve(line);
        };
        const onClose = () => {
          ended = true;
          lines.off('line', onLine);
          io.stderr.write('\n');
          resolve(undefined);
        };
        lines.once('line', onLine);
        lines.once('close', onClose);
        lines.resume();
      });
    },
    close() {
      reader?.close();
      reader = undefined;
    },
  };
}
