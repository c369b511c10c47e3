import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const PACKAGE = join(import.meta.dirname, '..');

/** A child Node process running `test/fixtures/<fixture>` on the TypeScript sources. */
export interface Child {
  process: ChildProcess;
  lines: string[];
  waitFor(test: (line: string) => boolean): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startChild(fixture: string, args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(
    process.execPath,
    ['--conditions=@bridle/source', '--import', 'tsx', join('test', 'fixtures', fixture), ...args],
    { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
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
