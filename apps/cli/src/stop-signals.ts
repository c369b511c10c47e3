import type { CliIO } from './cli-io';

/** What {@link abortOnStopSignals} gives back. */
export interface StopSignals {
  /** Stops listening; call once the work is over. */
  stop(): void;
  /** True when SIGTERM (rather than Ctrl-C) stopped the work: exit 143 instead of 130. */
  readonly terminated: boolean;
}

/** Aborts `controller` on Ctrl-C (SIGINT) and on SIGTERM, so `run` and `batch` stop cleanly on either. */
export function abortOnStopSignals(io: CliIO, controller: AbortController): StopSignals {
  let terminated = false;
  const stopInterrupt = io.onInterrupt(() => controller.abort(new Error('Interrupted (Ctrl-C)')));
  const stopTerminate =
    io.onTerminate?.(() => {
      terminated = true;
      controller.abort(new Error('Terminated (SIGTERM)'));
    }) ?? (() => {});
  return {
    stop() {
      stopInterrupt();
      stopTerminate();
    },
    get terminated() {
      return terminated;
    },
  };
}
