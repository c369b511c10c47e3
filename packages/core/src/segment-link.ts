import type { RunEvent, Store, Usage } from '@bridle/protocol';
import { type EventSink, isSilent } from './event-sink';
import type { LoopState } from './loop-state';
import type { ResolvedBudget, ResolvedOptions } from './resolve-options';
import type { RunLink } from './run-link';
import type { RunScope } from './run-scope';
import type { ApproveHook } from './types';
import { addUsage } from './usage';

/**
 * The {@link RunLink} of a running segment. A class: its methods are shared, not made anew per run as the
 * closures of an object literal would be (most runs call no sub-agent and never use them).
 */
export class SegmentLink implements RunLink {
  readonly runId: string;
  readonly observed: boolean;
  readonly store: Store | undefined;
  readonly approve: ApproveHook | undefined;
  readonly decisionKey: Uint8Array;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly state: LoopState,
    private readonly scope: RunScope,
    private readonly emitter: EventSink,
  ) {
    this.runId = state.runId;
    this.observed = !isSilent(emitter);
    this.store = options.store;
    this.approve = options.approve;
    this.decisionKey = options.decisionKey;
  }

  forward(event: RunEvent): void {
    this.emitter.forward(event);
  }

  remainingMs(): number {
    return this.scope.remainingMs();
  }

  remainingBudget(): ResolvedBudget | undefined {
    const { budget } = this.options;
    const { usage } = this.state;
    return (
      budget && {
        maxTokens: budget.maxTokens - usage.inputTokens - usage.outputTokens,
        maxCostUsd: budget.maxCostUsd - (usage.costUsd ?? 0),
        ...(budget.gate === undefined ? {} : { gate: budget.gate }),
      }
    );
  }

  addUsage(usage: Usage): void {
    addUsage(this.state.usage, usage);
  }
}
