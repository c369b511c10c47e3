import { ConfigError, describeValue, type Sandbox, type Tool, type ToolContext } from '@bridle/protocol';

/** Arguments of the shell tool. */
export interface ShellArguments {
  /** A bash command line, run by `bash -c` in the workspace root inside the sandbox. */
  command: string;
}

/** What a shell command did. `refusals` says what the sandbox refused or stopped, one sentence each. */
export interface ShellResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  refusals: string[];
}

/** Options of {@link shellTool}. */
export interface ShellToolOptions {
  /** Tool name. Default `shell`. */
  name?: string;
  /** Ask the loop's approve hook before each command. Default true. */
  requiresApproval?: boolean;
  /** Longest command line, in characters. Default 20,000. */
  maxCommandChars?: number;
}

/**
 * A tool that runs `bash -c <command>` inside a sandbox (never outside one: it needs a {@link Sandbox},
 * e.g. from `openBubblewrapSandbox`). Requires approval by default. A command that exits non-zero, times
 * out or hits a bound is a result (with `refusals` saying what the sandbox stopped); an empty or oversized
 * command and an aborted run throw.
 */
export function shellTool(sandbox: Sandbox, options: ShellToolOptions = {}): Tool<ShellArguments, ShellResult> {
  if (typeof sandbox !== 'object' || sandbox === null || typeof sandbox.run !== 'function') {
    throw new ConfigError(
      `shellTool needs a Sandbox (from openBubblewrapSandbox in @bridle/sandbox), got ${describeValue(sandbox)}; a shell never runs unsandboxed.`,
    );
  }
  const name = options.name ?? 'shell';
  const maxCommandChars = options.maxCommandChars ?? 20_000;
  return {
    name,
    description: describe(sandbox),
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          minLength: 1,
          maxLength: maxCommandChars,
          description: 'A bash command line, e.g. "git diff --stat" or "npm test 2>&1 | tail -40".',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    requiresApproval: options.requiresApproval ?? true,
    async execute(input, context?: ToolContext) {
      const command = (input as Partial<ShellArguments> | null)?.command;
      if (typeof command !== 'string' || command.trim() === '') {
        throw new Error(`${name}: "command" must be a non-empty string of bash, e.g. {"command": "ls -la"}.`);
      }
      if (command.length > maxCommandChars || command.includes('\u0000')) {
        throw new Error(
          `${name}: "command" must be at most ${maxCommandChars} characters without NUL bytes; write a script file in the workspace and run it instead.`,
        );
      }
      const { aborted, refusals, ...result } = await sandbox.run({
        argv: ['bash', '-c', command],
        ...(context?.signal ? { signal: context.signal } : {}),
      });
      if (aborted) throw new Error(`${name}: the command was aborted; every process it started was stopped.`);
      return { ...result, refusals };
    },
  };
}

function describe(sandbox: Sandbox): string {
  return [
    `Run a bash command line in the workspace folder, inside a ${sandbox.kind} sandbox.`,
    'The workspace is writable except .git (read-only), .env* and .bridle (hidden); the rest of the file system is read-only; /tmp and the home folder are empty and vanish after each command.',
    sandbox.network
      ? 'The network is available.'
      : 'There is no network (not even 127.0.0.1): install nothing, fetch nothing.',
    'Time, output, processes and memory are bounded; background processes are killed when the command ends.',
    'The result has exitCode, stdout, stderr and refusals (what the sandbox stopped, if anything).',
  ].join(' ');
}
