import type { RunState } from './run-state';
import type { FinishReason, JsonValue, Message, Usage } from './types';

/** Fields every run event carries, added by the emitter (`RunEmitter` of @bridle/events). */
export interface EventBase {
  /** The run this event belongs to. */
  runId: string;
  /** 0, 1, 2, ... in emission order within one run. */
  sequence: number;
  /** Wall-clock time of emission, ISO 8601 (`2025-01-31T12:00:00.000Z`). */
  timestamp: string;
  /** Set on a sub-agent's events as they reach the parent's observers: the parent's run id. */
  parentRunId?: string;
}

/**
 * What a journaled run ran with, journaled in its first `run_start`: enough to rebuild its tools on resume and
 * to refuse a resume with other tools. Never holds credentials, environment values or HTTP headers.
 */
export interface RunManifest {
  /** The model id, without credentials (as `run_start.model`). */
  model: string;
  /** The skills an app composed the run from (names or folders), when it said. */
  skills?: string[];
  /** The workspace folder the run's file and command tools work in (absolute), when it had one. */
  workspace?: string;
  /** Command presets the run could run (name and definition), when it had any. */
  presets?: { name: string; definition: JsonValue }[];
  /**
   * The app's signature over `presets` (and `workspace`), e.g. the CLI's HMAC with the user's decision key: a
   * resume rebuilds presets from a journal only when the holder of that key wrote them (a store may be planted).
   */
  presetsSignature?: string;
  /** Names of the MCP servers whose tools the run had (never their env values or headers). */
  mcpServers?: string[];
  /** Every tool the run offered the model, by name, with `sha256:` over its arguments' JSON Schema (canonical JSON). */
  tools: { name: string; schemaDigest: string }[];
  /**
   * The run's limits as given: `maxSteps` always; `maxToolCalls`, `timeoutMs`, `budget` and `approvalTimeoutMs`
   * when set (an unlimited one is left out).
   */
  limits: {
    maxSteps: number;
    maxToolCalls?: number;
    timeoutMs?: number;
    budget?: { maxTokens?: number; maxCostUsd?: number };
    approvalTimeoutMs?: number;
  };
}

/** A run began. */
export interface RunStartBody {
  type: 'run_start';
  /** The model id, e.g. `openai:gpt-4o-mini`. */
  model: string;
  system?: string;
  prompt?: string;
  /** True when this segment continues a paused or interrupted run (`resumeRun`). */
  resumed?: boolean;
  /** The session the run belongs to, when an app gave one. */
  sessionId?: string;
  /**
   * The tenant the run belongs to (the server's API keys); absent: tenant `default`. Only that tenant's
   * keys see, follow, decide or steer the run. Set on the first segment; a resumed one keeps it.
   */
  tenant?: string;
  /** Who started this segment, or decided the approvals it resumes with: the API key's name (never a secret). */
  by?: string;
  /**
   * The transcript a journaled run started from, when it was given as `messages` (not `prompt`): with
   * the events that follow, it is what `resumeRun` rebuilds the run from. Set only when the run has a store.
   */
  messages?: Message[];
  /**
   * A journaled segment's own unique id (no two segments of any run or process share one): two processes opening
   * the same segment at once (two resumes of one paused run) write different events, so the store refuses the second before it runs anything.
   */
  segmentId?: string;
  /**
   * A resumed segment: the decisions it was given on pending calls, by call id (journaled with it). A
   * decision object may carry the `digest` of the pending call it was made on.
   */
  approvals?: Record<
    string,
    | boolean
    | { approved: true; digest?: string; by?: string; decidedBy?: 'person' | 'policy' }
    | { approved: false; reason?: string; digest?: string; by?: string; decidedBy?: 'person' | 'policy' }
  >;
  /**
   * A sub-agent's (`agentTool`) first `run_start`: the run and the call that started it. Its pauses are
   * the parent's: decide its calls on the parent run, whose resume resumes it.
   */
  parent?: { runId: string; callId: string };
  /**
   * The HMAC of `approvals` with the run's decision key (bound to the run, the batch and each call's name
   * and arguments). A resume applies journaled decisions only when it verifies; others are asked again.
   */
  approvalsSignature?: string;
  /** A journaled run's first segment: what it ran with (see {@link RunManifest}). */
  manifest?: RunManifest;
}

/** A model call (one attempt of one step) began. */
export interface ModelStartBody {
  type: 'model_start';
  /** 1-based step number. */
  step: number;
  /** 1-based attempt number within the step (greater than 1 after a retry). */
  attempt: number;
}

/** A model call returned a valid response. */
export interface ModelEndBody {
  type: 'model_end';
  step: number;
  /** Milliseconds since the matching `model_start` (monotonic clock). */
  durationMs: number;
  usage: Usage;
  /** Number of tool calls the response asked for. */
  toolCalls: number;
  /** The response text. */
  content: string;
  /** Why the model stopped, when the provider said. */
  finishReason?: FinishReason;
  /** The id of the model that answered (differs from the run's model behind a fallback). */
  model?: string;
  /** The full response's tool calls and provider data, journaled so a resumed run never calls the model again. */
  response?: { toolCalls?: { id: string; name: string; arguments: unknown }[]; providerData?: JsonValue };
}

/** A model call failed (it may be retried: see `willRetry`). */
export interface ModelErrorBody {
  type: 'model_error';
  step: number;
  attempt: number;
  /** The error message. */
  error: string;
  /** The `BridleError` code, when there is one. */
  code?: string;
  retryable: boolean;
  willRetry: boolean;
}

/**
 * A tool call of an admitted batch began (emitted for every call, before validation). Approvals of a
 * batch are decided before any of its calls starts.
 */
export interface ToolStartBody {
  type: 'tool_start';
  step: number;
  callId: string;
  name: string;
  arguments: unknown;
}

/** A tool call produced its result (or error result). */
export interface ToolEndBody {
  type: 'tool_end';
  step: number;
  callId: string;
  name: string;
  /** Milliseconds since the matching `tool_start` (monotonic clock). */
  durationMs: number;
  isError: boolean;
  /** The (bounded) result text the model sees. */
  result: string;
  /**
   * Usage of the sub-agent (`agentTool`) this call ran, added to the run's usage: journaled with the
   * result so a run rebuilt from its journal counts it. Absent for other tools.
   */
  usage?: Usage;
}

/** A piece of streamed model text (only when streaming). */
export interface TextDeltaBody {
  type: 'text_delta';
  step: number;
  text: string;
}

/**
 * A call of a `requiresApproval` tool waits for a person's decision (the run is about to pause). Emitted once
 * per call, when it is first put to a person.
 */
export interface ApprovalRequestedBody {
  type: 'approval_requested';
  step: number;
  callId: string;
  name: string;
  /**
   * When the wait ends (ISO 8601), if the run or tool set `approvalTimeoutMs`: a call still undecided then is
   * decided by the deadline (`decidedBy: 'timeout'`) by whichever process next continues the run.
   */
  deadline?: string;
}

/** A call of a `requiresApproval` tool was decided: approved, or denied (then its result says why). */
export interface ApprovalDecidedBody {
  type: 'approval_decided';
  callId: string;
  approved: boolean;
  /**
   * Who decided: `person` (a decision given to `resumeRun`, an answer on a terminal or in the inspector),
   * `policy` (the `approve` hook or a standing rule, e.g. `--yes`), `timeout` (the deadline passed undecided).
   */
  decidedBy: 'person' | 'policy' | 'timeout';
  /** Who exactly, when known: the server's token name, the CLI user, the policy rule. */
  by?: string;
}

/** The run (or, for a paused run, its segment) ended. Emitted exactly once per segment, always last. */
export interface RunEndBody {
  type: 'run_end';
  /**
   * An `AgentStatus`: `completed`, `step_limit`, `tool_limit`, `timeout`, `aborted`, `model_error`,
   * `context_limit`, `awaiting_approval` (the segment paused; `resumeRun` opens the next), `budget_limit`.
   */
  status: string;
  steps: number;
  toolCalls: number;
  /** Token usage summed over the run. */
  usage: Usage;
  /** Milliseconds since the emitter was created (monotonic clock). */
  durationMs: number;
  error?: string;
  answer?: string;
  /** The last response's finish reason (as `AgentResult.finishReason`; `length`: the output limit cut it). */
  finishReason?: FinishReason;
  /** Present when the run paused (`awaiting_approval`): what `resumeRun` needs. */
  state?: RunState;
  /**
   * Who cancelled the run (status `aborted` by `cancelRun`, `POST /api/runs/:id/cancel`, `bridle cancel` or a
   * `streamAgent` handle's `cancel()`): the `by` they gave, e.g. `api`, `cli:alice`. Absent when the run's
   * own `signal` aborted it.
   */
  cancelledBy?: string;
  /**
   * The calls waiting for a person's decision (status `awaiting_approval`). `digest` binds a decision to
   * the call (absent in journals written before it existed); `runId` names a sub-agent's run.
   */
  pendingApprovals?: {
    callId: string;
    name: string;
    arguments: unknown;
    digest?: string;
    runId?: string;
    /** When the wait for this call ends (ISO 8601; see `approval_requested.deadline`). */
    deadline?: string;
  }[];
}

/**
 * A user message steered into the run from outside (`steerRun`, `POST /api/runs/:id/input`, `bridle steer`, a
 * `streamAgent` handle's `input()`), journaled and appended to the transcript at a step boundary: before the
 * next model call, never inside a batch of tool calls. Its emission is the acknowledgement a sender waits for.
 * A paused run's input is journaled after its `run_end` and joins the transcript when the run is resumed.
 */
export interface InputBody {
  type: 'input';
  /** The user message's text. */
  content: string;
  /** Who sent it, when they said (e.g. `api`, `cli:alice`). */
  by?: string;
}

/** The event bodies, without the fields the emitter adds. */
export type RunEventBody =
  | RunStartBody
  | ModelStartBody
  | ModelEndBody
  | ModelErrorBody
  | ToolStartBody
  | ToolEndBody
  | TextDeltaBody
  | ApprovalRequestedBody
  | ApprovalDecidedBody
  | InputBody
  | RunEndBody;

/** One run event: a discriminated union on `type`, with `runId`, `sequence` and `timestamp`. */
export type RunEvent = EventBase & RunEventBody;

/** The `type` of a run event. */
export type RunEventType = RunEvent['type'];

/** The run event of one `type`, e.g. `RunEventOf<'tool_end'>`. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
