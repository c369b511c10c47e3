export { Agent, type AgentOptions, type AgentRunOptions } from './agent';
export { type AgentToolInfo, agentTool, type SubAgentOptions } from './agent-tool';
export { JournalError } from './journal';
export type { MemoryOptions, MemoryStrategy } from './memory';
export { newRunId } from './new-run-id';
export { type QuotaLimits, quotaGate } from './quota-gate';
export {
  type LedgerDay,
  type LedgerReservation,
  MemoryQuotaLedger,
  type QuotaLedger,
  toMicros,
} from './quota-ledger';
export { DEFAULT_MAX_TOOL_RESULT_CHARS } from './resolve-options';
export { resumeRun } from './resume-run';
export { runAgent } from './run-agent';
export { RunEndedError } from './run-ended-error';
export { manifestToolChanges, type ToolChanges } from './run-manifest';
export { type ComposedSkills, type ComposeSkillsOptions, composeSkills, type Skill, skillSection } from './skill';
export {
  cancelRun,
  type RunSignalOptions,
  type SignalOutcome,
  type SteerRunOptions,
  steerRun,
} from './steer-run';
export { type AgentStream, type SteerOptions, streamAgent } from './stream-agent';
export { subAgentRunId } from './sub-agent-pause';
export type {
  AgentLimits,
  AgentResult,
  AgentStatus,
  ApprovalDecision,
  ApproveHook,
  BudgetGate,
  BudgetOptions,
  BudgetRequest,
  BudgetReservation,
  ContextOptions,
  HookAnswer,
  ManifestDetails,
  OutputSchema,
  PendingApproval,
  ResumeRunOptions,
  RetryOptions,
  RunAgentOptions,
} from './types';
