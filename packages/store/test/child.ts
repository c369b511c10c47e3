import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const PACKAGE = join(import.meta.dirname, '..');

/** A child Node process running a fixture from `test/fixtures` on the TypeScript sources. */
export interface Child {
  process: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first stdout line (seen or future) matching `test`; rejects if the child exits first. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  /** Resolves when the child exited, with its stdout lines and stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: string[]; stderr: string }>;
}

/** Starts `test/fixtures/<fixture>` with `args`. */
export function startChild(fixture: string, args: string[]): Child {
  const child = spawn(
    process.execPath,
    ['--conditions=@bridle/source', '--import', 'tsx', join('test', 'fixtures', fixture), ...args],
    { cwd: PACKAGE, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let stderr = '';
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((entry) => entry.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: string[]; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, lines, stderr })),
  );
  return {
    process: child,
    lines,
    exited,
    waitFor(test) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then(({ code, signal }) =>
          reject(new Error(`child ${fixture} exited (${code ?? signal}) before the line; stderr:\n${stderr}`)),
        );
      });
    },
  };
}
