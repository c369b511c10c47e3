import { BridleError } from '@bridle/protocol';

const RUN_ENDED_MARKER = Symbol.for('bridle.error.run_ended');

/**
 * Steering or cancelling a run that already ended (code `run_ended`; the server answers 409). `status` is
 * how it ended. Nothing was sent or journaled: start a new run (or continue its session) instead.
 */
export class RunEndedError extends BridleError {
  readonly [RUN_ENDED_MARKER] = true;
  constructor(
    readonly runId: string,
    readonly status: string,
    action: 'steer' | 'cancel',
  ) {
    super(
      'run_ended',
      `Cannot ${action} run ${runId}: it already ended (status ${status}), so nothing was sent. Start a new run, or continue its session, instead.`,
    );
    this.name = 'RunEndedError';
  }

  /** True for a `RunEndedError` from any copy of this package. */
  static override isInstance(value: unknown): value is RunEndedError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RUN_ENDED_MARKER] === true;
  }
}
