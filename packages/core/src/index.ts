export { Agent, type AgentOptions, type AgentRunOptions } from './agent';
export { type AgentToolInfo, agentTool, type SubAgentOptions } from './agent-tool';
export { JournalError } from './journal';
export type { MemoryOptions, MemoryStrategy } from './memory';
export { DEFAULT_MAX_TOOL_RESULT_CHARS } from './resolve-options';
export { resumeRun } from './resume-run';
export { runAgent } from './run-agent';
export { type ComposedSkills, type ComposeSkillsOptions, composeSkills, type Skill, skillSection } from './skill';
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
