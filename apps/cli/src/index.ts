export { type AgentFlags, type AgentSetup, BUILT_IN_SKILLS, buildAgentSetup } from './agent-setup';
export { type CliIO, type CliOutput, processIO } from './cli-io';
export type { CommandContext } from './command-context';
export { type CliCommandPreset, parseCommandPreset } from './command-preset';
export { ExitCode, type ExitCodeValue, exitCodeForStatus } from './exit-code';
export { main } from './main';
export { createProgram } from './program';
export { compact, createRunRenderer, type RunOutcome, type RunRenderer, type RunRendererOptions } from './render-run';
export { colorEnabled, createStyle, type Style } from './style';
