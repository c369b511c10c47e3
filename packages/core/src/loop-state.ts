import type { FinishReason, JsonValue, Message, ToolCall, Usage } from '@bridle/protocol';
import type { PendingInput } from './run-inbox';
import type { PausedSubAgent } from './sub-agent-pause';
import type { ToolOutcome } from './tool-result-text';
import type { AgentStatus, ApprovalDecision, PendingApproval } from './types';

/** A decision on a `requiresApproval` call: `true` runs it; a string is its `Denied: ...` result. */
export type Decision = true | string;

/**
 * One batch of tool calls on its way from a model response to tool messages. A fresh batch has only
 * `calls`; a batch carried over a pause or a crash also holds what is already known about it.
 */
export interface Batch {
  /** The step (model call) that asked for the batch. */
  step: number;
  /** The assistant message's text and provider data. */
  content: string;
  providerData?: JsonValue;
  /** The calls as given to tools (the model's own objects, or a copy of the recorded ones). */
  calls: readonly ToolCall[];
  /** The calls as the transcript records them (private copies of the arguments). */
  recorded: ToolCall[];
  /** Decisions already made (by `approve`, or by a person through `resumeRun`). */
  decisions: Map<string, Decision>;
  /** Calls waiting for a person: never put to the `approve` hook again. */
  asked: Set<string>;
  /** When the wait ends (ISO 8601), for calls waiting for a person under a deadline. */
  deadlines: Map<string, string>;
  /** Results journaled before a crash: used as they are, never run again. */
  results: Map<string, ToolOutcome>;
  /** Calls whose `tool_start` was journaled without a `tool_end`: the crash may have cut them. */
  interrupted: Set<string>;
  /** Sub-agents (`agentTool` calls) that paused for approval, by the parent's call id. */
  subAgents: Map<string, PausedSubAgent>;
  /** Decisions given to the parent for calls a paused sub-agent waits on, by the parent's call id. */
  subDecisions: Map<string, Record<string, ApprovalDecision>>;
  /** True once a sub-agent of this batch paused while the batch ran: no further call starts. */
  pausing: boolean;
  /** Usage sub-agents added to the run during a call, by call id, until its `tool_end` carries it. */
  callUsage?: Map<string, Usage>;
}

/** The running totals of one run, and the batch carried over from a pause or a crash. */
export interface LoopState {
  readonly runId: string;
  readonly messages: Message[];
  steps: number;
  toolCalls: number;
  readonly usage: Usage;
  /** The `model` of the last response: the model that answered, when a wrapper (`fallback`) named it. */
  answeredBy?: string;
  /** The last response's `finishReason`, when the provider said. */
  finishReason?: FinishReason;
  /** Why the last final answer failed the `output` schema, if it did. */
  outputProblem?: string;
  /** A batch to finish before the next model call (resumed runs only). */
  carried?: Batch;
  /** Every call id of the run so far (built at the segment's first response): see `uniqueCallIds`. */
  callIds?: Set<string>;
  /**
   * Journaled input that waits for the carried batch (sent while the run was paused, or kept at its pause):
   * appended to the transcript at the next step boundary, without a new event.
   */
  pendingInputs?: PendingInput[];
}

/** How the loop ended: everything of the result that is not the running totals. */
export interface Ending {
  status: AgentStatus;
  error?: string;
  answer?: string;
  output?: unknown;
  /** Status `aborted` by a `cancel` signal: who sent it. */
  cancelledBy?: string;
  /** Status `awaiting_approval`: the paused batch and its calls waiting for a decision. */
  paused?: { batch: Batch; pending: PendingApproval[] };
}

/** A fresh batch from a model response. */
export function newBatch(
  step: number,
  content: string,
  providerData: JsonValue | undefined,
  calls: readonly ToolCall[],
  recorded: ToolCall[],
): Batch {
  const batch: Batch = {
    step,
    content,
    calls,
    recorded,
    decisions: new Map(),
    asked: new Set(),
    deadlines: new Map(),
    results: new Map(),
    interrupted: new Set(),
    subAgents: new Map(),
    subDecisions: new Map(),
    pausing: false,
  };
  if (providerData !== undefined) batch.providerData = providerData;
  return batch;
}
