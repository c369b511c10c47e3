import type { RunEvent, Usage } from '@bridle/protocol';
import type { ResolvedBudget } from './resolve-options';

/** The key under which a tool's context carries its run's {@link RunLink} (read by `agentTool`). */
export const RUN_LINK = Symbol('bridle.core.runLink');

/** What a sub-agent needs of the run that calls it. */
export interface RunLink {
  readonly runId: string;
  /** False when nobody observes the parent's events (forwarding would be wasted). */
  readonly observed: boolean;
  /** Hands a sub-agent's event to the parent's observers. */
  forward(event: RunEvent): void;
  /** Milliseconds left before the parent's deadline (`Infinity` without one). */
  remainingMs(): number;
  /** The parent's budget minus what it has used, or `undefined` without a budget. */
  remainingBudget(): ResolvedBudget | undefined;
  /** Adds a sub-agent's usage to the parent's. */
  addUsage(usage: Usage): void;
}
