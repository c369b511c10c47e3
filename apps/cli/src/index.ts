export { type AgentFlags, type AgentSetup, buildAgentSetup } from './agent-setup';
export { BUILT_IN_SKILLS } from './built-in-skills';
export { type CliIO, type CliOutput, processIO } from './cli-io';
export type { CommandContext } from './command-context';
export { type CliCommandPreset, parseCommandPreset } from './command-preset';
export { ExitCode, type ExitCodeValue, exitCodeForStatus } from './exit-code';
export { main } from './main';
export { createProgram } from './program';
export {
  compact,
  createRunRenderer,
  type RunOutcome,
  type RunRenderer,
  type RunRendererOptions,
  summarizeCommandResult,
} from './render-run';
export { colorEnabled, createStyle, type Style } from './style';
