import type { Tool, ToolContext } from '@bridle/protocol';
import { expectArguments, stringArgument } from './check-arguments';
import { describeWalkStop } from './describe-walk-stop';
import { compileGlob, globCostRefusal } from './glob-pattern';
import { WorkspaceError } from './workspace-error';
import type { WalkSummary, WorkspaceOperations } from './workspace-operations';

/** Arguments of `find_files`. */
export interface FindFilesArguments {
  pattern: string;
}

/** Bounds of `find_files`. */
export interface FindFilesLimits {
  /** Most paths returned. Default 500. */
  maxResults?: number;
  /** Most entries visited while walking. Default 20,000. */
  maxEntries?: number;
  /** Deepest directory level walked below the glob's base. Default 64. */
  maxDepth?: number;
  /** Wall time the walk may take, in milliseconds; then it stops and says where. Default 10,000. */
  walkTimeBudgetMs?: number;
}

const NAME = 'find_files';

/**
 * `find_files {pattern}`: paths of files matching a glob (see `compileGlobMatcher`: picomatch syntax without extglobs, relative to the root,
 * dotfiles included, `**` for any depth), sorted. Walks without following symlinks, skips protected
 * paths, and stops at `maxResults` paths, `maxEntries` visited entries or `walkTimeBudgetMs`, saying
 * which and where. Checks the call's signal at every entry and yields to the event loop. Read-only.
 */
export function findFilesTool(
  operations: WorkspaceOperations,
  limits: FindFilesLimits = {},
): Tool<FindFilesArguments, string> {
  const maxResults = limits.maxResults ?? 500;
  const maxEntries = limits.maxEntries ?? 20_000;
  const maxDepth = limits.maxDepth ?? 64;
  const timeBudgetMs = limits.walkTimeBudgetMs ?? 10_000;
  return {
    name: NAME,
    description:
      'Find files in the workspace whose path matches a glob, e.g. "src/**/*.ts" or "**/README.md". Paths are relative to the root; "*" does not cross "/".',
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string', description: 'Glob relative to the workspace root.' } },
      required: ['pattern'],
      additionalProperties: false,
    },
    readOnly: true,
    async execute(input, context?: ToolContext) {
      const args = expectArguments(NAME, input, ['pattern']);
      const pattern = stringArgument(NAME, args, 'pattern', { required: true });
      const glob = compileGlob(NAME, 'pattern', pattern, { matchBase: false });
      const found: string[] = [];
      let full = false;
      let summary: WalkSummary;
      try {
        summary = await operations.walk(
          glob.base,
          (entry) => {
            if (entry.type !== 'file' || !glob.matches(entry.path)) return undefined;
            if (found.length >= maxResults) {
              full = true;
              return 'stop';
            }
            found.push(entry.path);
            return undefined;
          },
          { maxEntries, maxDepth, timeBudgetMs, signal: context?.signal, gitignore: true },
        );
      } catch (error) {
        // A glob whose literal base does not exist simply matches nothing.
        if (WorkspaceError.isInstance(error) && error.code === 'not_found')
          return `No files match ${JSON.stringify(pattern)}.`;
        throw globCostRefusal(NAME, 'pattern', error);
      }
      const lines = found.length === 0 ? [`No files match ${JSON.stringify(pattern)}.`] : found;
      if (full) lines.push(`[stopped after ${maxResults} results; use a narrower pattern]`);
      else if (summary.stop !== undefined)
        lines.push(describeWalkStop(summary.stop, { maxEntries, maxDepth, timeBudgetMs }));
      return lines.join('\n');
    },
  };
}
