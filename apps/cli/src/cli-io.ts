import { readlinkSync, statSync } from 'node:fs';

/** A writable stream as the CLI uses it (a TTY has `isTTY` and `columns`). */
export interface CliOutput {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

/** Where the CLI reads, writes and looks things up. Tests pass their own; `bin.ts` passes the process's. */
export interface CliIO {
  stdout: CliOutput & NodeJS.WritableStream;
  stderr: CliOutput & NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * Environment variables: the shell's. Commands add `--env-file` variables and the API keys of the
   * folder's `.env`, never overriding what is set.
   */
  env: Record<string, string | undefined>;
  /** The working directory: `.env`, relative paths and `--workspace` resolve from here. */
  cwd: string;
  /**
   * True when standard input is a pipe or a non-empty file (`echo x | bridle ...`, `bridle ... < notes.txt`),
   * i.e. the user sent it something; false for a terminal, /dev/null or a socket a parent left open.
   */
  stdinPiped?(): boolean;
  /** Calls `handler` on every Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  /**
   * Calls `handler` on SIGTERM until the returned function is called: `run` and `batch` then stop like
   * on Ctrl-C (the batch summary printed, nothing half-written) instead of dying mid-write.
   */
  onTerminate?(handler: () => void): () => void;
}

function stdinPiped(): boolean {
  if (process.stdin.isTTY) return false;
  try {
    // On Linux, where fd 0 leads tells a pipe from a socket without a stat of stdin: on Node 20 a stat of a socket
    // pair on fd 0 makes a later import of a pnpm-linked CJS package (better-sqlite3) fail (TOOLCHAIN.md).
    const target = readlinkSync('/proc/self/fd/0');
    if (target.startsWith('pipe:')) return true;
    if (!target.startsWith('/') || target === '/dev/null') return false;
    const info = statSync(target);
    return info.isFile() && info.size > 0;
  } catch {
    // No /proc: ask the path below.
  }
  try {
    // A stat by path, not fstat on fd 0 (on Node 20 that can break a later import: see TOOLCHAIN.md).
    const info = statSync('/dev/stdin');
    return info.isFIFO() || (info.isFile() && info.size > 0);
  } catch {
    return false;
  }
}

/** The process's own streams, environment and working directory. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdinPiped,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
    onTerminate(handler) {
      process.on('SIGTERM', handler);
      return () => process.off('SIGTERM', handler);
    },
  };
}
