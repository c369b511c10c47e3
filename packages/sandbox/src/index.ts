export type { Sandbox, SandboxCommand, SandboxResult } from '@bridle/protocol';
export { type BubblewrapSandbox, type BubblewrapSandboxOptions, openBubblewrapSandbox } from './bubblewrap-sandbox';
export { DEFAULT_PROTECTED_NAMES, type ProtectedNames } from './protected-entries';
export { SandboxUnavailableError } from './sandbox-unavailable-error';
export { type ShellArguments, type ShellResult, type ShellToolOptions, shellTool } from './shell-tool';
