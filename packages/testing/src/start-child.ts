import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How a child ended: its exit code or signal, every stdout line and the whole stderr. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  stderr: string;
}

/** A child Node process of a test (see {@link startChild}). */
export interface Child {
  /** The process: kill it, write to its `stdin`. */
  process: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first stdout line (seen or future) matching `test`; rejects, with its stderr, if the child exits first. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  /** Resolves when the child has exited and its output is closed. Never rejects. */
  exited: Promise<ChildExit>;
}

/** Options of {@link startChild}. */
export interface ChildOptions {
  /** Working directory of the child; a relative `script` resolves against it. Default: this process's. */
  cwd?: string;
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
  /** Node options before the script. Default `['--import', 'tsx']`: TypeScript through tsx (install it yourself). */
  nodeArgs?: string[];
}

/**
 * Starts `node <nodeArgs> <script> <args>` for a test that needs a real second process (two writers of one
 * database, a worker killed with SIGKILL): its stdout is read line by line, stdin is a pipe, stderr is kept for
 * error messages. Never throws; a child that cannot start shows up as `exited`.
 */
export function startChild(script: string, args: readonly string[] = [], options: ChildOptions = {}): Child {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? ['--import', 'tsx']), script, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const lines: string[] = [];
  let stderr = '';
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  child.stdin.on('error', () => {});
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
  const exited = new Promise<ChildExit>((resolve) => {
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
    });
    child.on('close', (code, signal) => resolve({ code, signal, lines, stderr }));
  });
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
          reject(new Error(`child ${script} exited (${code ?? signal}) before the line; stderr:\n${stderr}`)),
        );
      });
    },
  };
}
