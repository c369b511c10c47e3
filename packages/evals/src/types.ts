import type { RunAgentOptions } from '@bridle/core';
import type { JsonSchema, Message, RunEvent, Store, Usage } from '@bridle/protocol';

/** One expected tool call of a case: its name and, optionally, the arguments it must have (a partial match). */
export interface ExpectedToolCall {
  name: string;
  /**
   * Matched against the call's arguments: every key given must be there with an equal value (objects are
   * matched the same way, recursively; arrays and other values must be equal). Keys not given are not checked.
   */
  arguments?: unknown;
}

/** What a case expects. Each built-in scorer checks one part and does not apply to cases without it. */
export interface EvalExpected {
  /** The whole answer (`exactAnswer`: equal after trimming whitespace at both ends). */
  answer?: string;
  /** Text the answer contains (`contains`): one string, or several that must all be there. */
  contains?: string | string[];
  /** A regular expression the answer matches (`matches`): `"pattern"` or `"/pattern/flags"`. */
  regex?: string;
  /** The tool calls the run makes (`toolTrajectory`), compared as `toolsOrder` says. */
  tools?: ExpectedToolCall[];
  /**
   * `exact` (default): these calls and no others, in this order; `any`: these calls and no others, in any
   * order; `subset`: at least these calls, in any order, others allowed.
   */
  toolsOrder?: 'exact' | 'any' | 'subset';
  /** A JSON Schema the structured output (or the answer parsed as JSON) must be valid against (`jsonSchema`). */
  json?: JsonSchema;
}

/** Run limits of one case (they replace a variant's own). */
export interface EvalCaseLimits {
  maxSteps?: number;
  maxToolCalls?: number;
  /** Whole-run deadline in milliseconds. */
  timeoutMs?: number;
  /** The run's budget in US dollars (status `budget_limit` when reached). */
  maxCostUsd?: number;
}

/** One case of a dataset (one JSONL line). */
export interface EvalCase {
  /** Unique within the dataset; default `case-<line>` (or `case-<index + 1>` for cases given in code). */
  id: string;
  /** A prompt, or a transcript to continue. */
  input: string | Message[];
  expected?: EvalExpected;
  tags?: string[];
  limits?: EvalCaseLimits;
}

/** A case as given to `runEval` (the `id` may be left out). */
export type EvalCaseInput = Omit<EvalCase, 'id'> & { id?: string };

/** A tool call a run made, as the scorers see it (its own calls, not a sub-agent's). */
export interface EvalToolCall {
  name: string;
  arguments: unknown;
  isError: boolean;
  /** The result text the model saw. */
  result: string;
}

/** A finished run of one case on one variant, as scorers see it (derived from its journal events). */
export interface EvalRun {
  runId: string;
  /** The variant's name. */
  variant: string;
  /** An agent status (`completed`, `step_limit`, ...), or `error` when the run could not start or had no end. */
  status: string;
  answer?: string;
  /** The structured output, when the run produced one (in process with `output`). */
  output?: unknown;
  error?: string;
  steps: number;
  toolCalls: number;
  /** The run's own tool calls, in the order their results came. */
  calls: EvalToolCall[];
  usage: Usage;
  /** Milliseconds the run took (from its `run_end` events). */
  durationMs: number;
  /** Every event of the run (its journal, or what an observer heard). */
  events: readonly RunEvent[];
}

/** What a scorer says about one run. */
export interface ScoreResult {
  /** From 0 (worst) to 1 (best). */
  score: number;
  /** Why, in one sentence a person can act on. */
  reason: string;
  /** What scoring cost (an LLM judge's own model calls); added to the eval's cost. */
  usage?: Usage;
}

/**
 * A scorer: a name and a function of a finished run and its case. It returns `undefined` when it does not
 * apply to the case (a built-in whose expectation the case does not have): that case is not counted for it.
 * A scorer that throws (or returns a score outside [0, 1]) gives that case an error score with the reason;
 * the eval goes on.
 */
export interface Scorer {
  name: string;
  /** The least score that passes; default 1. */
  threshold?: number;
  score(run: EvalRun, testCase: EvalCase): ScoreResult | undefined | Promise<ScoreResult | undefined>;
}

/** A scorer that answers at once (every built-in but `llmJudge`). */
export interface SyncScorer extends Scorer {
  score(run: EvalRun, testCase: EvalCase): ScoreResult | undefined;
}

/** `runAgent` options a variant gives every case (the eval sets the input, run id, store and signal). */
export type EvalAgentOptions = Omit<
  RunAgentOptions,
  'prompt' | 'messages' | 'signal' | 'runId' | 'store' | 'sessionId'
>;

/** What a variant's own `run` function is asked to do. */
export interface EvalRunRequest {
  testCase: EvalCase;
  /** The run id to use (journaled runs of an eval are found by it on resume). */
  runId: string;
  /** The eval's tag for the run (a session id): `eval:<evalId>`. */
  tag: string;
  signal: AbortSignal;
}

/** The journal of a run a variant's `run` function made: its id and every event of it. */
export interface RecordedRun {
  runId: string;
  events: readonly RunEvent[];
  /** The structured output, when there is one. */
  output?: unknown;
}

/**
 * One model / skill / prompt setup every case runs on. Either `agent` (run in this process with
 * `runAgent`) or `run` (your own execution: a queue, a server; return the run's events).
 */
export interface EvalVariant {
  /** Unique within the eval; shown in the report (e.g. the model id). */
  name: string;
  agent?: EvalAgentOptions;
  /** Options of one case on top of `agent` (e.g. a model that replays the case's recording). */
  forCase?: (testCase: EvalCase) => Partial<EvalAgentOptions>;
  /**
   * Runs a case elsewhere and resolves with its journal. On a resumed eval it is also handed the id of a run
   * that is still running (started by the interrupted eval), to follow it rather than start another.
   */
  run?: (request: EvalRunRequest) => Promise<RecordedRun>;
}

/** One scorer's verdict on one case of one variant. */
export interface CaseScore {
  scorer: string;
  /** Null when the scorer failed (see `error`): never a silent 0. */
  score: number | null;
  passed: boolean;
  reason: string;
  /** Why the scorer could not score (it threw, or gave a score outside [0, 1]). */
  error?: string;
}

/** One case on one variant: how the run ended and what every applicable scorer said. */
export interface CaseResult {
  caseId: string;
  variant: string;
  runId: string;
  status: string;
  /** The answer, shortened in the middle past 2,000 characters (reports stay bounded). */
  answer?: string;
  error?: string;
  steps: number;
  toolCalls: number;
  usage: Usage;
  /** Tokens and cost of the scorers (an LLM judge), not part of `usage`. */
  scoringUsage?: Usage;
  durationMs: number;
  scores: CaseScore[];
  /** True when every score passed (and there was at least one, or the run completed). */
  passed: boolean;
  /** True when the run was found in the store from an earlier, interrupted attempt of this eval. */
  reused?: boolean;
}

/** One scorer on one variant. */
export interface ScorerSummary {
  scorer: string;
  /** Cases it applied to (scored or errored). */
  total: number;
  passed: number;
  errors: number;
  /** `passed / total` (1 when it applied to none). */
  passRate: number;
  /** Mean of the numeric scores (errors left out); null when there was none. */
  meanScore: number | null;
}

/** One variant over all cases. */
export interface VariantSummary {
  variant: string;
  cases: number;
  completed: number;
  /** Cases whose every score passed. */
  passed: number;
  usage: Usage;
  /** Dollars of the runs (where priced) plus the scorers' own. */
  costUsd: number;
  scoringCostUsd: number;
  p50Ms: number;
  p95Ms: number;
  scorers: ScorerSummary[];
}

/** What `runEval` resolves with (and what `bridle eval --out` writes, as JSON). */
export interface EvalResult {
  version: 1;
  evalId: string;
  /** False when the eval was aborted before every case ran (run it again with the same `evalId` to resume). */
  complete: boolean;
  startedAt: string;
  finishedAt: string;
  variants: string[];
  scorers: string[];
  /** One per case and variant that ran, variant by variant in dataset order. */
  cases: CaseResult[];
  summary: VariantSummary[];
  /** Free-form description of where the cases came from (a dataset path, a runs filter). */
  dataset?: string;
}

/** Progress of an eval (cases of all variants). */
export interface EvalProgress {
  total: number;
  done: number;
  passed: number;
  running: number;
}

/** Options of `runEval`. */
export interface RunEvalOptions {
  dataset: readonly EvalCaseInput[];
  variants: readonly EvalVariant[];
  scorers: readonly Scorer[];
  /**
   * Journal every run here, tagged with the eval (session id `eval:<evalId>`, run ids
   * `eval.<evalId>.<variant>.<case>`). With the same `evalId`, runs that already ended are scored
   * from the journal instead of running again: an interrupted eval resumes.
   */
  store?: Store;
  /** Default: a new random id. Letters, digits, `_` and `-`, 1 to 64 characters. */
  evalId?: string;
  /** Runs at once across all variants; default 4. */
  concurrency?: number;
  /** Aborts the eval: unstarted cases are left out, running ones end `aborted`; the result has `complete: false`. */
  signal?: AbortSignal;
  /** Called once per case and variant as soon as it is scored. */
  onCaseResult?: (result: CaseResult) => void;
  onProgress?: (progress: EvalProgress) => void;
  /** Where the cases came from, copied into the result. */
  datasetName?: string;
}
