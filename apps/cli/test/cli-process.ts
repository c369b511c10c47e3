import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI (tests drive it as a real process). */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** Fails with a clear message when the CLI has not been built. */
export function requireBuild(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (pnpm turbo run build --filter=bridle...).`);
}

/** A fresh empty working directory. */
export function tempDir(prefix = 'bridle-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A hermetic environment: PATH and HOME only (never the developer's API keys), NO_COLOR on, a fresh empty
 * config folder (`XDG_CONFIG_HOME`: never the developer's config.json, trusted.json or decision key) and data
 * folder (`XDG_DATA_HOME`: where the default store would be), the `memory:` store
 * (runs kept nowhere: the default SQLite store's native addon does not load on every Node of the matrix;
 * tests of the store set `BRIDLE_STORE` or `--store` themselves), plus `extra`.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    XDG_CONFIG_HOME: tempDir('bridle-config-'),
    XDG_DATA_HOME: tempDir('bridle-data-'),
    NO_COLOR: '1',
    BRIDLE_STORE: 'memory:',
    ...extra,
  };
}

/** The environment pointing the CLI at a fake OpenAI server (`openai:fake-model`), plus `extra`. */
export function fakeOpenAIEnv(fake: { baseURL: string }, extra: Record<string, string> = {}): Record<string, string> {
  return cliEnv({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    BRIDLE_MODEL: 'openai:fake-model',
    ...extra,
  });
}

/** Options of {@link runCli} and {@link startCli}. */
export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  input?: string;
}

/** A running CLI process with its output collected so far. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when `pattern` appears in the stream (stdout by default). */
  waitFor(pattern: RegExp | string, stream?: 'stdout' | 'stderr'): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts `bridle ...args` with piped stdio. */
export function startCli(args: readonly string[], options: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? tempDir(),
    env: options.env ?? cliEnv(),
    stdio: 'pipe',
  });
  const output = { stdout: '', stderr: '' };
  const waiters: { pattern: RegExp | string; stream: 'stdout' | 'stderr'; resolve: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const text = output[waiter.stream];
      if (typeof waiter.pattern === 'string' ? text.includes(waiter.pattern) : waiter.pattern.test(text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
    check();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
    check();
  });
  // A CLI that exits before reading its standard input (a usage error, --help) closes the pipe: EPIPE is
  // not the test's failure, and what the CLI printed and its exit code are still checked.
  child.stdin.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  if (options.input !== undefined) child.stdin.end(options.input);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal, ...output }));
    },
  );
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitFor(pattern, stream = 'stdout') {
      return new Promise<void>((resolve) => {
        waiters.push({ pattern, stream, resolve });
        check();
      });
    },
    exited,
  };
}

/** Runs `bridle ...args` to the end (stdin closed unless `input` is given). */
export function runCli(args: readonly string[], options: CliOptions = {}) {
  const process = startCli(args, { ...options, input: options.input ?? '' });
  return process.exited;
}

/** Resolves once `condition()` is true, checking every 10 ms (bounded by the test timeout). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
