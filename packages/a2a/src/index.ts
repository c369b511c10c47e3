export { A2AAgentError } from './a2a-agent-error';
export {
  type A2AAgentToolArguments,
  type A2AAgentToolOptions,
  type A2AAgentUpdate,
  a2aAgentTool,
} from './a2a-agent-tool';
