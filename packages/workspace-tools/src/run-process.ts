import { spawn } from 'node:child_process';
import { OutputBuffer } from '@bridle/protocol/internal';
import { signalGroup, waitForGroupExit } from './process-group';

/** The outcome of one command run. `durationMs` is wall time from spawn to the group being gone. */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Only for a `sandbox: true` preset whose sandbox stepped in: what it refused or stopped, one sentence each. */
  refusals?: string[];
}

/** What to run and its bounds. Times in milliseconds, sizes in bytes (per stream). */
export interface ProcessSpec {
  executable: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  killGraceMs: number;
  signal?: AbortSignal;
}

/** How long to wait for stray pipe holders (a process that left the group) once the group is gone. */
const PIPE_DRAIN_MS = 500;

/**
 * Spawns without a shell in a new process group. On timeout or abort, and when the direct child
 * exits with members of its group still running, the whole group gets SIGTERM, then SIGKILL after
 * `killGraceMs`. Settles only after no process of the group runs. `spawn` itself happens
 * synchronously, before this returns, so `cwd` only has to stay valid for the call. Throws when the
 * spawn fails synchronously (E2BIG); `done` rejects when it fails later (ENOENT, EACCES).
 */
export function runProcess(spec: ProcessSpec): { done: Promise<CommandResult & { aborted: boolean }> } {
  const started = performance.now();
  // Throws for some failures (E2BIG: an argument over the kernel's 128 KiB limit); others reject `done`.
  const child = spawnChild(spec);
  const done = new Promise<CommandResult & { aborted: boolean }>((resolve, reject) => {
    // Node returns a child without pipes when it ran out of descriptors (EMFILE, ENFILE); its 'error' follows.
    if (child.stdout === null || child.stderr === null) {
      child.on('error', reject);
      return;
    }
    const stdout = new OutputBuffer(spec.maxOutputBytes);
    const stderr = new OutputBuffer(spec.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A pipe that fails ends like a closed one ('close' follows); unheard, its 'error' would crash the process.
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const terminate = (): void => {
      if (killTimer !== undefined || child.pid === undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), spec.killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const streamsClosed = Promise.all([closed(child.stdout), closed(child.stderr)]);

    // `on`, not `once`: a second 'error' (a failed kill, say) must not go unheard either.
    child.on('error', (error) => {
      if (child.pid !== undefined) return; // it started: 'exit' settles the run
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.once('exit', (exitCode, signal) => {
      finish(exitCode, signal).then(resolve, reject);
    });
    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      // Whatever the direct child left behind in its group belongs to this run: end it too.
      const pid = child.pid!;
      terminate();
      const gone = await waitForGroupExit(pid, spec.killGraceMs + 10_000);
      clearTimeout(killTimer);
      if (!gone) signalGroup(pid, 'SIGKILL');
      // A process that escaped the group (setsid) may still hold the pipes: do not wait on it forever.
      const drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_DRAIN_MS);
      await streamsClosed;
      clearTimeout(drain);
      return {
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
      };
    };
  });
  return { done };
}

function spawnChild(spec: ProcessSpec) {
  return spawn(spec.executable, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    shell: false,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
}

function closed(stream: NodeJS.ReadableStream | null): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
  });
}
