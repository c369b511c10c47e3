import type { EventSink } from './event-sink';
import type { Journal } from './journal';
import type { LoopState } from './loop-state';
import type { ResolvedOptions } from './resolve-options';
import type { RunInbox } from './run-inbox';
import type { RunLink } from './run-link';
import type { RunScope } from './run-scope';

/** Everything one run segment works with, passed as one object through the loop. */
export interface RunContext {
  readonly options: ResolvedOptions;
  readonly scope: RunScope;
  readonly emitter: EventSink;
  /** Present when the run journals to `options.store`. */
  readonly journal: Journal | undefined;
  readonly state: LoopState;
  /** Steering input and cancels heard from outside, for the step boundaries. */
  readonly inbox: RunInbox;
  /** Handed to tools (for sub-agents). */
  readonly link: RunLink;
}
