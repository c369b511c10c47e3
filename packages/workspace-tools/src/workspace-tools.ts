import type { Tool } from '@bridle/protocol';
import { editFileTool } from './edit-file-tool';
import { type FindFilesLimits, findFilesTool } from './find-files-tool';
import { listDirectoryTool } from './list-directory-tool';
import { readFileTool } from './read-file-tool';
import { type SearchTextLimits, searchTextTool } from './search-text-tool';
import type { WorkspaceOperations } from './workspace-operations';
import { writeFileTool } from './write-file-tool';

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolsOptions {
  /** Only the read-only tools (read_file, list_directory, find_files, search_text). Default false. */
  readOnly?: boolean;
  /** Bounds of `find_files`. */
  find?: FindFilesLimits;
  /** Bounds of `search_text`. */
  search?: SearchTextLimits;
  /** Most entries `list_directory` returns. Default 1000. */
  maxListEntries?: number;
}

/**
 * The file tools over a workspace (or any {@link WorkspaceOperations}): `read_file`, `write_file`,
 * `edit_file`, `list_directory`, `find_files`, `search_text`. Read-only ones carry `readOnly: true`;
 * with `readOnly: true` only those are returned.
 */
export function workspaceTools(operations: WorkspaceOperations, options: WorkspaceToolsOptions = {}): Tool[] {
  const readOnlyTools: Tool[] = [
    readFileTool(operations),
    listDirectoryTool(operations, { maxEntries: options.maxListEntries }),
    findFilesTool(operations, options.find),
    searchTextTool(operations, options.search),
  ];
  if (options.readOnly) return readOnlyTools;
  return [readOnlyTools[0]!, writeFileTool(operations), editFileTool(operations), ...readOnlyTools.slice(1)];
}
