export { argumentsMatch } from './arguments-match';
/** The built-in scorers by name (for `bridle eval --scorer` and configs). */
export { BUILT_IN_SCORERS } from './built-in-scorers';
export { caseFromRun } from './case-from-run';
export { type CaseChange, compareEvals, type EvalComparison, type ScorerDelta } from './compare-evals';
export { type CompletedWithinLimits, completedWithin } from './completed-within';
export { contains } from './contains';
export { evalRunFromEvents } from './eval-run-from-events';
export { exactAnswer } from './exact-answer';
export { formatComparison, formatEvalReport, printable } from './format-report';
export { jsonSchema } from './json-schema';
export { type LlmJudgeOptions, llmJudge } from './llm-judge';
export { matches } from './matches';
export { checkDataset, type ReadDatasetOptions, readDataset } from './read-dataset';
export { readEvalResult } from './read-eval-result';
export { runEval } from './run-eval';
export { scoreRun } from './score-run';
export { summarizeEval } from './summarize-eval';
export { toolTrajectory } from './tool-trajectory';
export type {
  CaseResult,
  CaseScore,
  EvalAgentOptions,
  EvalCase,
  EvalCaseInput,
  EvalCaseLimits,
  EvalExpected,
  EvalProgress,
  EvalResult,
  EvalRun,
  EvalRunRequest,
  EvalToolCall,
  EvalVariant,
  ExpectedToolCall,
  RecordedRun,
  RunEvalOptions,
  ScoreResult,
  Scorer,
  ScorerSummary,
  SyncScorer,
  VariantSummary,
} from './types';
