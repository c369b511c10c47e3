import type { ToolContext, Usage } from '@bridle/protocol';
import type { Batch } from './loop-state';
import { RUN_LINK, type RunLink } from './run-link';
import type { CallSignal } from './run-scope';
import { SUB_AGENT_CALL, type SubAgentCall, subAgentRunId } from './sub-agent-pause';
import { addUsage } from './usage';

/**
 * The context one tool call's `execute` receives. A class rather than an object literal with a getter:
 * every call makes one, and instances of one class share a shape and their `signal` accessor.
 */
export class CallContext implements ToolContext {
  readonly callId: string;
  readonly runId: string;
  readonly idempotencyKey: string;
  readonly [RUN_LINK]: RunLink;
  readonly #call: CallSignal;
  readonly #batch: Batch;

  constructor(callId: string, runId: string, call: CallSignal, link: RunLink, batch: Batch) {
    this.callId = callId;
    this.runId = runId;
    this.idempotencyKey = `${runId}:${callId}`;
    this[RUN_LINK] = link;
    this.#call = call;
    this.#batch = batch;
  }

  /** The call's own signal, created on first read (most tools never look). */
  get signal(): AbortSignal {
    return this.#call.signal;
  }

  /** Counts usage spent outside the run by this call (a remote agent's) on the run and on the call's `tool_end`. */
  addUsage(usage: Usage): void {
    const batch = this.#batch;
    this[RUN_LINK].addUsage(usage);
    batch.callUsage ??= new Map();
    const counted = batch.callUsage.get(this.callId) ?? { inputTokens: 0, outputTokens: 0 };
    addUsage(counted, usage);
    batch.callUsage.set(this.callId, counted);
  }

  /** What `agentTool` needs to start or resume its sub-agent (read by it alone). */
  get [SUB_AGENT_CALL](): SubAgentCall {
    const batch = this.#batch;
    const { callId } = this;
    const link = this[RUN_LINK];
    return {
      runId: subAgentRunId(this.runId, batch.step, callId),
      parent: { runId: this.runId, callId },
      paused: batch.subAgents.get(callId),
      approvals: batch.subDecisions.get(callId),
      addUsage(usage) {
        link.addUsage(usage);
        batch.callUsage ??= new Map();
        const counted = batch.callUsage.get(callId) ?? { inputTokens: 0, outputTokens: 0 };
        addUsage(counted, usage);
        batch.callUsage.set(callId, counted);
      },
    };
  }
}
