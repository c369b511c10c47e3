/**
 * One command for a {@link Sandbox} to run. Times in milliseconds, sizes in bytes.
 */
export interface SandboxCommand {
  /** The program and its arguments (argv, never parsed by a shell); a bare `argv[0]` is found on the sandbox's `PATH`. */
  argv: readonly string[];
  /** Working directory relative to the workspace root (`""` or omitted: the root). Never outside it. */
  cwd?: string;
  /** Variables set inside on top of the sandbox's allow-list (the caller's trusted choice, never the model's). */
  env?: Readonly<Record<string, string>>;
  /** Wall-clock limit; on expiry every process of the command is killed. Default: the sandbox's. */
  timeoutMs?: number;
  /** Most bytes kept of stdout and of stderr, each (the rest is counted, not kept). Default: the sandbox's. */
  maxOutputBytes?: number;
  /** Aborting kills every process of the command; the result then has `aborted: true`. */
  signal?: AbortSignal;
}

/** What a sandboxed command did. A non-zero exit is a result, never an error. */
export interface SandboxResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Wall time from start until no process of the command was left, in milliseconds. */
  durationMs: number;
  /**
   * One sentence per thing the sandbox refused or stopped (a write outside the workspace, a blocked
   * connection, the process or memory bound, the time limit), written for the model so it can adapt.
   * Empty when the sandbox did not step in.
   */
  refusals: string[];
}

/**
 * Runs commands in an OS sandbox over one workspace folder: writes only inside the workspace (never its
 * protected paths), no network unless allowed, an environment allow-list, bounded time, output,
 * processes and memory. `@bridle/sandbox` implements it on Linux with bubblewrap; a remote sandbox can
 * implement the same interface.
 */
export interface Sandbox {
  /** What contains the commands, e.g. `"bubblewrap"`. */
  readonly kind: string;
  /** The workspace folder (a real path): read-write inside the sandbox, except its protected paths. */
  readonly root: string;
  /** Whether commands may use the network. */
  readonly network: boolean;
  /** Runs one command. Rejects only when it cannot start (the result of a started command is data). */
  run(command: SandboxCommand): Promise<SandboxResult>;
}
