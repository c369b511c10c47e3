import type { JsonValue } from './types';

/**
 * What `resumeRun` needs to continue a paused run without a store: JSON, made by @bridle/core. Its
 * fields other than these are core's internals; `digest` covers the whole content, so a state edited
 * by hand is refused.
 */
export interface RunState {
  /** Format version of the state; a newer format than the running Bridle knows is refused. */
  version: number;
  /** The run this state continues. */
  runId: string;
  /** A digest of every other field: `resumeRun` refuses a state that does not match it. */
  digest: string;
  [key: string]: JsonValue;
}
