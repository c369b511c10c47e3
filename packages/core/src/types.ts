import type { EventObserver, RunEvent } from '@bridle/events';
import type {
  FinishReason,
  JsonSchema,
  Message,
  Model,
  RunLease,
  RunManifest,
  RunSignalChannel,
  RunState,
  Store,
  Tool,
  ToolCall,
  Usage,
} from '@bridle/protocol';
import type { StandardSchemaV1 } from '@bridle/registry';

/** How a run ended. */
export type AgentStatus =
  /** The model gave a final answer (and, with `output`, it parsed and validated). */
  | 'completed'
  /** `maxSteps` model calls were made without a final answer. */
  | 'step_limit'
  /** The model asked for a batch of tool calls larger than the remaining `maxToolCalls` budget. */
  | 'tool_limit'
  /** `timeoutMs` passed. */
  | 'timeout'
  /** The caller's `signal` aborted. */
  | 'aborted'
  /** The model failed (after retries) or returned an invalid response. */
  | 'model_error'
  /** Even the newest required part of the conversation does not fit `context.maxContextChars`. */
  | 'context_limit'
  /** `approve` answered `'ask'` for a call: the run paused before that batch; continue it with `resumeRun`. */
  | 'awaiting_approval'
  /** The run's summed usage reached `budget.maxTokens` or `budget.maxCostUsd` before a model call. */
  | 'budget_limit';

/** A tool call waiting for a person's decision (status `awaiting_approval`). */
export interface PendingApproval {
  /** The call id: the key of its decision in `resumeRun`'s `approvals`. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** The arguments the model gave, as recorded: the call runs with exactly these. */
  arguments: unknown;
  /** The sub-agent's run id, when the call belongs to a sub-agent (`agentTool`) of this run. */
  runId?: string;
  /**
   * Binds a decision to this call (`sha256:` over the run id, call id, name and arguments): a decision that
   * gives it (`{ approved, digest }`) applies to this call only, and to nothing once the call has passed.
   * Always set by this release; absent only in a pause journaled by an older one (read back from a store).
   */
  digest?: string;
  /**
   * When the wait for a decision ends (ISO 8601), when the run or the tool set `approvalTimeoutMs`. Once it
   * has passed, the next `resumeRun` decides the call by the deadline: denied with the result `No decision was
   * made before the deadline; this is not a refusal by a person.`, or run when the tool is `autoApproveOnTimeout`.
   */
  deadline?: string;
}

/** What a run produced. `runAgent` always resolves with one once the run has started. */
export interface AgentResult<Output = unknown> {
  status: AgentStatus;
  /** The final answer text; set when `status` is `completed`. */
  answer?: string;
  /** The whole transcript (input and everything the run appended); always passes `assertTranscript`. */
  messages: Message[];
  /** Model calls that returned a response (failed attempts that were retried do not count). */
  steps: number;
  /** Tool calls in admitted batches. */
  toolCalls: number;
  runId: string;
  /** Summed over all model calls of the run. */
  usage: Usage;
  /** Why the run did not complete (model error message, cancellation, limit), when it did not. */
  error?: string;
  /** Status `aborted` by `cancelRun` (or a `cancel()` of its `streamAgent` handle): who cancelled it. */
  cancelledBy?: string;
  /**
   * The id of the model that gave the run's last response, when the response named it: `fallback()` of
   * @bridle/models does (the model of the list that answered). Absent otherwise (the run's `model.id` answered).
   */
  model?: string;
  /**
   * Why the model stopped on the run's last response (mapped by the adapter; see SPEC "finishReason mapping"),
   * when the provider said. `length` with status `completed` means the output token limit cut the final answer:
   * `answer` is incomplete (raise the adapter's output limit, or ask for less). Tool calls cut by the limit never
   * reach the loop: the adapter reports them as a `model_error`.
   */
  finishReason?: FinishReason;
  /** The parsed and validated structured answer, when `output` was given and the run completed. */
  output?: Output;
  /** Status `awaiting_approval`: every call of the paused batch that needs a decision. */
  pendingApprovals?: PendingApproval[];
  /** Status `awaiting_approval`: what `resumeRun` needs to continue the run (JSON; keep it as it is). */
  state?: RunState;
}

/** Context budget options, in characters. */
export interface ContextOptions {
  /** Before every model call, keep the first user message plus the newest message groups that fit
   *  (length of their JSON). Default: no limit. */
  maxContextChars?: number;
  /** Each tool result is cut to this many characters (head and tail kept). Default 100,000. */
  maxToolResultChars?: number;
}

/**
 * Retries of retryable `ProviderError`s, with exponential backoff and jitter: before retry `n` (from 1), a random
 * wait between half and all of `min(maxDelayMs, baseDelayMs * 2^(n-1))`, never less than `retryAfterMs`.
 */
export interface RetryOptions {
  /** Retries after the first attempt of one step; default 2, at most 100. */
  maxRetries?: number;
  /** The first backoff step in ms (doubles each retry); default 500. */
  baseDelayMs?: number;
  /** The largest backoff step in ms; default 8,000. A provider's `retryAfterMs` may exceed it. */
  maxDelayMs?: number;
}

/**
 * Decides whether a `requiresApproval` tool call may run. Resolve `true` to allow, `'ask'` to pause the
 * run (status `awaiting_approval`) until a person decides through `resumeRun`; anything else, or a
 * throw, denies it.
 */
export type ApproveHook = (call: ToolCall, tool: Tool) => HookAnswer | Promise<HookAnswer>;

/**
 * What an {@link ApproveHook} answers: `true` / `false` (journaled as decided by `policy`), `'ask'`, or a
 * decision that says who made it (`decidedBy: 'person'` for an answer a person gave on a terminal; `by` names
 * them or the rule). A denial's `reason` becomes the call's `Denied: <reason>` result.
 */
export type HookAnswer =
  | boolean
  | 'ask'
  | { approved: boolean; reason?: string; decidedBy?: 'person' | 'policy'; by?: string };

/** Limits on what a run may spend; checked before each model call, so a run passes them by at most one step. */
export interface BudgetOptions {
  /** Most tokens (input plus output, summed over the run's model calls); a positive number. */
  maxTokens?: number;
  /** Most US dollars (the summed `usage.costUsd` of the run's model calls, counted where the model reports it). */
  maxCostUsd?: number;
  /**
   * A budget kept outside the run (a tenant's quotas across processes), asked before each model call of
   * the run and of its sub-agents: it answers a reservation, or why the run must stop (status
   * `budget_limit` with that reason as the error).
   */
  gate?: BudgetGate;
}

/** What a {@link BudgetGate} is told before a model call. */
export interface BudgetRequest {
  runId: string;
  /** 1-based step of the call. */
  step: number;
  /** The run's usage so far (this segment's, summed over its model calls). */
  usage: Usage;
  /**
   * What the call is estimated to use: input tokens from the request's characters (4 to a token) plus
   * the previous call's output tokens; dollars at the run's average price per token so far (0 before
   * the first priced call).
   */
  estimate: { tokens: number; costUsd: number };
}

/** A gate's answer: stop the run (`budget_limit`, `stop` is the error), or a reservation settled after the call. */
export type BudgetReservation =
  | { stop: string }
  | {
      /**
       * Called once after the call with its real usage (zeros when it failed), so the gate can reconcile
       * the reservation. Its failure is ignored by the run.
       */
      settle(actual: Usage): void | Promise<void>;
    };

/** A shared budget asked before each model call (see {@link BudgetOptions.gate}). */
export interface BudgetGate {
  reserve(request: BudgetRequest): BudgetReservation | Promise<BudgetReservation>;
}

/**
 * A person's decision on a pending call: `true` runs it, `false` (or `{ approved: false, reason }`) denies it.
 * The object form may name the pending call's `digest` (from `pendingApprovals`): then the decision applies
 * only to the call the person was shown, and `resumeRun` refuses it for any other. It may also say who decided
 * (journaled in `approval_decided`): `decidedBy` (default `'person'`; `'policy'` for a standing rule such as
 * `--yes`) and `by` (a login, an API token's name, the rule).
 */
export type ApprovalDecision =
  | boolean
  | { approved: true; digest?: string; by?: string; decidedBy?: 'person' | 'policy' }
  | { approved: false; reason?: string; digest?: string; by?: string; decidedBy?: 'person' | 'policy' };

/** A structured output schema: a JSON Schema object, or a Standard Schema such as a zod 4 schema. */
export type OutputSchema<Output = unknown> = JsonSchema | StandardSchemaV1<unknown, Output>;

/** Options shared by `runAgent` and the `Agent` class. */
export interface AgentLimits<Output = unknown> {
  /** Most model calls of one run; a positive safe integer. Default 10. */
  maxSteps?: number;
  /** Most tool calls of one run; a non-negative safe integer or `Infinity` (default). */
  maxToolCalls?: number;
  /** Whole-run deadline in ms (positive, at most 2,147,483,647). Default: none. */
  timeoutMs?: number;
  context?: ContextOptions;
  /** Observers of the run's events; a throwing observer never changes the run. */
  onEvent?: EventObserver | readonly EventObserver[];
  /** Hears about observers that threw. */
  onObserverError?: (error: unknown, event: RunEvent) => void;
  /** Asked before every call of a `requiresApproval` tool; without it such calls are denied. */
  approve?: ApproveHook;
  /**
   * How long a person has to decide a call the `approve` hook put to them (`'ask'`), in ms: the deadline is
   * journaled with the pause (`approval_requested.deadline`, `pendingApprovals[].deadline`), so it holds
   * across restarts; the first `resumeRun` after it passed decides every call still undecided: denied with
   * the result `No decision was made before the deadline; this is not a refusal by a person.` (never as a
   * person's refusal), or run when the tool is `autoApproveOnTimeout`. A tool's own `approvalTimeoutMs`
   * wins. Positive, at most 2,147,483,647. Default: no deadline (a pause waits forever).
   */
  approvalTimeoutMs?: number;
  /** Most read-only tools of one batch running at once; a positive safe integer. Default 4. */
  toolConcurrency?: number;
  retry?: RetryOptions;
  /** Structured final answer: it must be JSON valid against this schema; `result.output` holds the value. */
  output?: OutputSchema<Output>;
  /** Use `model.stream` when the model has it, emitting `text_delta` events. Default false. */
  stream?: boolean;
  /** Stop with status `budget_limit` once the run has used this many tokens or dollars. */
  budget?: BudgetOptions;
  /**
   * Journal every event of the run here (any object of the `Store` shape, e.g. `openStore()` of
   * @bridle/store): model responses and tool results are durable before the run goes on, so
   * `resumeRun({ store, runId })` can continue the run after a crash.
   */
  store?: Store;
  /**
   * Where the run hears steering input and cancels sent from outside it (`steerRun`, `cancelRun`), besides its
   * store (a store with `listenRunSignals`, as every `openStore` store has, is always listened to). A queue
   * worker adds its Redis channel here. Input is delivered at the next step boundary (before a model call,
   * never inside a batch of tool calls) and journaled as an `input` event; a cancel ends the run `aborted`
   * with `cancelledBy`. Default: none.
   */
  channels?: readonly RunSignalChannel[];
  /**
   * The secret that authenticates decisions a run keeps: the decisions made before a pause (in
   * `result.state` and the journal's `run_end`) and those a resumed segment journals (`run_start.approvals`)
   * are signed with it (HMAC-SHA-256, bound to the run, the batch and each call's name and arguments), and
   * `resumeRun` applies only decisions that verify with it. A decision that does not verify (a state from a
   * browser, a job payload or a file, a journal planted in a cloned folder) is dropped: its call is put to
   * `approve` again, as if never decided. Decisions passed to `resumeRun` as `approvals` are the caller's
   * own and need no signature. At least 32 bytes (a `Uint8Array`, or a string whose UTF-8 bytes are used).
   * Default: a random key made once per process, so stored decisions verify only in the process that
   * made them; give every process that resumes the same runs the same key (the `bridle` CLI keeps one in
   * `~/.config/bridle/decision-key`).
   */
  decisionKey?: Uint8Array | string;
  /** The lease of a journaled run's segments (see {@link OwnershipOptions}); used only with `store`. */
  ownership?: OwnershipOptions;
}

/**
 * Who owns a journaled run's segment, in a store that keeps leases (every store of `openStore()`): the
 * segment takes the run's lease before its `run_start`, renews it every third of `leaseMs` while it runs,
 * carries its fencing token on every append, and gives it up when the segment ends. A process that lost
 * the lease (paused or cut off past it while another took the run) stops with a `JournalError` of code
 * `fenced` before any further tool or model call.
 */
export interface OwnershipOptions {
  /** This process's name in the lease (what `listRuns` shows as `owner`). Default `<host>:<pid>:<random>`. */
  owner?: string;
  /** How long the lease lasts unless renewed, in ms. Default 30000. */
  leaseMs?: number;
  /**
   * A lease already taken for this run (from `store.claimOrphans()`, or one a queue worker took with its
   * job): the segment uses it instead of taking one.
   */
  lease?: RunLease;
}

/** Options of {@link runAgent}. Exactly one of `prompt` and `messages`. */
export interface RunAgentOptions<Output = unknown> extends AgentLimits<Output> {
  model: Model;
  tools?: readonly Tool[];
  /** The system prompt (sent as `ModelRequest.system`, never as a message). */
  system?: string;
  /** Starts a new conversation with this user message. */
  prompt?: string;
  /** Continues this transcript (it must pass `assertTranscript`); it is copied, never mutated. */
  messages?: readonly Message[];
  /** Cancels the run: it resolves with status `aborted`. */
  signal?: AbortSignal;
  /** The run's id (default: a random UUID). With a `store`, it must not be in the store yet. */
  runId?: string;
  /**
   * The session (conversation) the run belongs to: its `run_start` event carries it, so a store lists the
   * run under it (`listRuns({ sessionId })`). 1 to 256 characters. Default: none.
   */
  sessionId?: string;
  /**
   * What the app built the run from, journaled (with a store) in the run's first `run_start` as part of its
   * `manifest` beside what core knows (model id, tools with schema digests, limits): skills, the workspace
   * folder, command presets, MCP server names. Never put credentials, env values or headers here.
   */
  manifest?: ManifestDetails;
}

/** The app's part of a run's `manifest` (see `RunAgentOptions.manifest`). */
export type ManifestDetails = Pick<RunManifest, 'skills' | 'workspace' | 'presets' | 'presetsSignature' | 'mcpServers'>;

/**
 * Options of `resumeRun`: the run's model, tools, system prompt and limits (give the same ones as the
 * first time), and where the run is: `store` with `runId` (or `state`), or `state` alone.
 */
export interface ResumeRunOptions<Output = unknown> extends AgentLimits<Output> {
  model: Model;
  tools?: readonly Tool[];
  system?: string;
  signal?: AbortSignal;
  /** The run's id in `store`; defaults to `state.runId`. */
  runId?: string;
  /** `result.state` of the paused run. With a store it must match the journal. */
  state?: RunState;
  /** Decisions on the pending calls, by call id (`result.pendingApprovals`); a call left out stays pending. */
  approvals?: Record<string, ApprovalDecision>;
  /**
   * Continue a journaled run with tools other than its `manifest` lists (added, missing, or with another
   * argument schema). Default false: such a resume is refused with a `ConfigError` naming the difference,
   * before anything runs.
   */
  allowToolChanges?: boolean;
}
