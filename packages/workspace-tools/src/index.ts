export { type CommandArguments, type CommandToolOptions, type CommandWorkspace, commandTool } from './command-tool';
export { type EditFileArguments, editFileTool } from './edit-file-tool';
export { type FindFilesArguments, type FindFilesLimits, findFilesTool } from './find-files-tool';
export { GIT_SAFETY_ARGUMENTS, GIT_SAFETY_ENVIRONMENT } from './git-safety';
export { type ListDirectoryArguments, listDirectoryTool } from './list-directory-tool';
export { DEFAULT_PROTECTED } from './protected-paths';
export { type ReadFileArguments, readFileTool } from './read-file-tool';
export { GIT_REPOSITORY_LAYOUT } from './repository-layout';
export type { CommandPreset } from './resolve-preset';
export type { CommandResult } from './run-process';
export { type SearchTextArguments, type SearchTextLimits, searchTextTool } from './search-text-tool';
export { WORKSPACE_PATH_FORMAT } from './string-parameter';
export { Workspace, type WorkspaceOptions } from './workspace';
export { WorkspaceError, type WorkspaceErrorCode } from './workspace-error';
export type {
  DirectoryEntry,
  DirectoryListing,
  EntryType,
  WalkEntry,
  WalkOptions,
  WalkStop,
  WalkSummary,
  WorkspaceOperations,
  WriteOptions,
  WriteResult,
} from './workspace-operations';
export { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';
export { type WriteFileArguments, writeFileTool } from './write-file-tool';
