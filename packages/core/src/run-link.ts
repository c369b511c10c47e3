import type { RunEvent, Store, Usage } from '@bridle/protocol';
import type { ResolvedBudget } from './resolve-options';
import type { ApproveHook } from './types';

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
  /** The parent's store: a sub-agent without its own journals there, under its own run id. */
  readonly store: Store | undefined;
  /** The parent's approve hook: it decides a sub-agent's calls when the sub-agent has no hook of its own. */
  readonly approve: ApproveHook | undefined;
  /** The parent's decision key: a sub-agent without its own signs and verifies its kept decisions with it. */
  readonly decisionKey: Uint8Array;
}
