export { Agent, type AgentOptions, type AgentRunOptions, type Skill } from './agent';
export type { MemoryOptions, MemoryStrategy } from './memory';
export { DEFAULT_MAX_TOOL_RESULT_CHARS } from './resolve-options';
export { runAgent } from './run-agent';
export type {
  AgentLimits,
  AgentResult,
  AgentStatus,
  ApproveHook,
  ContextOptions,
  OutputSchema,
  RetryOptions,
  RunAgentOptions,
} from './types';
