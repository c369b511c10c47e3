/** The CLI's exit codes. */
export const ExitCode = {
  /** The run completed (every batch item completed). */
  completed: 0,
  /** A run ended by a limit (steps, tool calls, time, context) or a model error; a batch with a failed item. */
  failed: 1,
  /** Bad arguments or configuration (unknown option, bad model id, missing API key, ...). */
  usage: 2,
  /** Interrupted with Ctrl-C (128 + SIGINT). */
  interrupted: 130,
  /** Stopped by SIGTERM (128 + SIGTERM), after stopping cleanly. */
  terminated: 143,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code for how a run ended: 0 `completed`, 130 `aborted`, 1 any other status. */
export function exitCodeForStatus(status: string): ExitCodeValue {
  if (status === 'completed') return ExitCode.completed;
  if (status === 'aborted') return ExitCode.interrupted;
  return ExitCode.failed;
}
