export { Agent, type AgentOptions, type AgentRunOptions, type Skill } from './agent';
export { type AgentToolInfo, agentTool, type SubAgentOptions } from './agent-tool';
export { JournalError } from './journal';
export type { MemoryOptions, MemoryStrategy } from './memory';
export { DEFAULT_MAX_TOOL_RESULT_CHARS } from './resolve-options';
export { resumeRun } from './resume-run';
export { runAgent } from './run-agent';
export { type AgentStream, streamAgent } from './stream-agent';
export type {
  AgentLimits,
  AgentResult,
  AgentStatus,
  ApprovalDecision,
  ApproveHook,
  BudgetOptions,
  ContextOptions,
  OutputSchema,
  PendingApproval,
  ResumeRunOptions,
  RetryOptions,
  RunAgentOptions,
} from './types';
