import { spawn } from 'node:child_process';
import { OutputBuffer } from '@bridle/protocol/internal';
import type { CgroupRun } from './cgroup-bounds';

/** One bwrap process to run and its bounds. Times in milliseconds, sizes in bytes (per stream). */
export interface SandboxedProcess {
  bwrap: string;
  args: string[];
  /** `sh`, which joins the control groups and then becomes bwrap (so every process starts inside them). */
  shell: string;
  /** The whole environment of the command (bwrap passes its own on). */
  env: Readonly<Record<string, string>>;
  cgroup?: CgroupRun;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** What the process did, plus what the bounds saw. */
export interface SandboxedOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  processBoundHit: boolean;
  memoryBoundHit: boolean;
}

/** How long to wait for the pipes once every process is gone (nothing else can hold them). */
const PIPE_DRAIN_MS = 500;

/**
 * Starts bwrap in a new process group with standard input closed and settles once no process of the
 * command is left. On timeout or abort every process is killed at once (SIGKILL: the sandbox's PID
 * namespace dies with bwrap, so nothing survives, whatever it did with signals or sessions). Rejects when
 * the process cannot start.
 */
export function runSandboxed(spec: SandboxedProcess): Promise<SandboxedOutcome> {
  const started = performance.now();
  const [executable, args] =
    spec.cgroup === undefined
      ? [spec.bwrap, spec.args]
      : [
          spec.shell,
          ['-c', joinScript(spec.cgroup.procsFiles.length), 'sh', ...spec.cgroup.procsFiles, spec.bwrap, ...spec.args],
        ];
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(executable, args, {
        env: { ...spec.env },
        shell: false,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      reject(error);
      return;
    }
    if (child.stdout === null || child.stderr === null) {
      child.on('error', reject);
      return;
    }
    const stdout = new OutputBuffer(spec.maxOutputBytes);
    const stderr = new OutputBuffer(spec.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    const streamsClosed = Promise.all([closed(child.stdout), closed(child.stderr)]);
    let timedOut = false;
    let aborted = false;
    const kill = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone
        }
      }
      void spec.cgroup?.killAll();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      if (child.pid !== undefined) return; // it started: 'exit' settles the run
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.once('exit', (exitCode, signal) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      void (async () => {
        // bwrap is gone, so is its PID namespace; the groups' stragglers (none, normally) are killed too.
        kill();
        const bounds = (await spec.cgroup?.finish()) ?? { processBoundHit: false, memoryBoundHit: false };
        const drain = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, PIPE_DRAIN_MS);
        await streamsClosed;
        clearTimeout(drain);
        resolve({
          exitCode,
          signal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          timedOut,
          aborted,
          durationMs: Math.round(performance.now() - started),
          ...bounds,
        });
      })();
    });
  });
}

/** `sh -c` script: write its own pid into each of the first `count` arguments, then exec the rest. */
function joinScript(count: number): string {
  const joins = Array.from({ length: count }, (_, index) => `echo $$ > "$${index + 1}"`);
  return `${joins.join(' && ')} && shift ${count} && exec "$@"`;
}

function closed(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
  });
}
