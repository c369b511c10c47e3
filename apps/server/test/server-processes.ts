import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built `bridle-server` (`dist/bin.js`: the server's test task depends on its build). Tests start it as a
 * real process from there, not from source through tsx: a start from source costs about twice the CPU.
 */
export const SERVER_BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** Node's arguments that start the built server; fails with a clear message when it has not been built. */
export function serverBinArgs(): string[] {
  if (!existsSync(SERVER_BIN))
    throw new Error(`${SERVER_BIN} is missing: build first (pnpm turbo run build --filter=@bridle/server...).`);
  return [SERVER_BIN];
}

/** A `bridle-server` process started from its build (`dist/bin.js`). */
export interface ServerProcess {
  child: ChildProcess;
  /** The base URL, once it printed `bridle-server listening on <url>`. */
  url: Promise<string>;
  exited: Promise<void>;
  output(): string;
  /** SIGTERM, then SIGKILL when it is still up after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts `bridle-server` as a real process with only PATH, PORT=0 and `env` in its environment. */
export function startServerProcess(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, serverBinArgs(), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      const match = /bridle-server listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) resolve(match[1] as string);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`bridle-server exited early:\n${output}`)));
  });
  url.catch(() => {});
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return { child, url, exited, output: () => output, stop };
}
