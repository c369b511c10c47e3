import type { SandboxedOutcome } from './run-sandboxed';

/** What the sandbox knew when the command ended, to explain what it refused. */
export interface RefusalContext {
  outcome: SandboxedOutcome;
  network: boolean;
  timeoutMs: number;
  maxProcesses: number;
  maxMemoryBytes: number;
  maxFileBytes: number;
  /** Protected paths the command created, removed afterwards (relative to the workspace). */
  removed: readonly string[];
}

const READ_ONLY = /read-only file system|EROFS/i;
const NETWORK =
  /network is unreachable|ENETUNREACH|connection refused|ECONNREFUSED|could not resolve|temporary failure in name resolution|name or service not known|EAI_AGAIN|ENOTFOUND|getaddrinfo/i;
const FORK = /fork: (retry: )?resource temporarily unavailable|EAGAIN.*(fork|spawn)|(fork|spawn).*EAGAIN/i;
const MEMORY = /cannot allocate memory|out of memory|ENOMEM|allocation failed|MemoryError|std::bad_alloc/i;
const FILE_SIZE = /file size limit exceeded|EFBIG|file too large/i;
const DENIED = /permission denied|EACCES/i;

/**
 * One sentence per thing the sandbox refused or stopped, for the model. Read from what the bounds saw
 * (control-group events, the timer) and from the command's error output: a program reports a refused
 * write as "Read-only file system" and a blocked connection as a refused or unreachable one.
 */
export function describeRefusals(context: RefusalContext): string[] {
  const { outcome } = context;
  const output = `${outcome.stderr}\n${outcome.stdout}`;
  const notes: string[] = [];
  if (outcome.timedOut) {
    notes.push(
      `The sandbox's time limit (${context.timeoutMs} ms) was reached: every process of the command was killed. Run something shorter or a part of it.`,
    );
  }
  if (READ_ONLY.test(output)) {
    notes.push(
      'The sandbox refused a write: only the workspace is writable (plus a fresh /tmp and home folder that vanish after the command), and never its .git folders.',
    );
  }
  if (DENIED.test(output)) {
    notes.push(
      'Permission denied: the sandbox hides protected files (.env*, .bridle) and the home folder; do not try to read them.',
    );
  }
  if (!context.network && NETWORK.test(output)) {
    notes.push(
      'The sandbox has no network: connections (even to 127.0.0.1) and name lookups fail. Work offline; only the user can allow the network.',
    );
  }
  if (outcome.processBoundHit || FORK.test(output)) {
    notes.push(
      `The sandbox's process bound (${context.maxProcesses} processes) was reached: starting a process failed.`,
    );
  }
  if (outcome.memoryBoundHit || (MEMORY.test(output) && outcome.exitCode !== 0)) {
    notes.push(
      `The sandbox's memory bound (${mebibytes(context.maxMemoryBytes)}) was reached: a process was refused memory or killed.`,
    );
  }
  if (outcome.signal === 'SIGXFSZ' || FILE_SIZE.test(output)) {
    notes.push(`The sandbox's file size bound (${mebibytes(context.maxFileBytes)}) was reached: a write was refused.`);
  }
  if (context.removed.length > 0) {
    notes.push(
      `The command created protected paths, which the sandbox removed: ${context.removed.join(', ')}. Do not create .git, .env* or .bridle entries.`,
    );
  }
  return notes;
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}
