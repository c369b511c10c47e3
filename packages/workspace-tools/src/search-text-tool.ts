import type { Tool, ToolContext } from '@bridle/protocol';
import { expectArguments, invalidArguments, stringArgument } from './check-arguments';
import { isText } from './decode-text';
import { describeWalkStop } from './describe-walk-stop';
import { compileGlob, globCostRefusal } from './glob-pattern';
import { type LineMatch, runRegexJob } from './regex-worker';
import { WorkspaceError } from './workspace-error';
import type { WalkStop, WorkspaceOperations } from './workspace-operations';

/** Arguments of `search_text`. */
export interface SearchTextArguments {
  pattern: string;
  path?: string;
  glob?: string;
}

/** Bounds of `search_text`. Sizes in bytes, times in milliseconds. */
export interface SearchTextLimits {
  /** Longest regex source. Default 500 characters. */
  maxPatternLength?: number;
  /** Files larger than this are skipped. Default: the workspace's `maxReadBytes`. */
  maxFileBytes?: number;
  /** Stop reading files after this many bytes in total. Default 16 MiB. */
  maxTotalBytes?: number;
  /** Most matching lines returned. Default 200. */
  maxMatches?: number;
  /** Matching lines are cut to this many characters. Default 300. */
  maxLineLength?: number;
  /** Most entries visited while walking. Default 20,000. */
  maxEntries?: number;
  /** Hard deadline for running the regex (in a worker thread). Default 5,000. */
  timeoutMs?: number;
  /** Wall time the walk collecting files may take; then it stops and says where. Default 10,000. */
  walkTimeBudgetMs?: number;
}

const NAME = 'search_text';
const MAX_DEPTH = 64;

/**
 * `search_text {pattern, path?, glob?}`: lines matching a JavaScript regex in text files under
 * `path` (a directory, default the root, or one file), optionally only files matching `glob`
 * (a glob without "/" matches the file name at any depth). Output lines are `path:line: text`.
 *
 * Guards: pattern length; files over `maxFileBytes` and binary files skipped; `maxTotalBytes`
 * read at most; `maxMatches` returned; the regex runs in a worker thread that is terminated at
 * `timeoutMs` (see {@link runRegexJob}: a deadline catches every slow pattern, where a static
 * nested-quantifier check misses cases like `(a|a)*b` or `\d*\d*\d*x`). Read-only.
 */
export function searchTextTool(
  operations: WorkspaceOperations,
  limits: SearchTextLimits = {},
): Tool<SearchTextArguments, string> {
  const bounds = {
    maxPatternLength: limits.maxPatternLength ?? 500,
    maxFileBytes: limits.maxFileBytes ?? operations.maxReadBytes,
    maxTotalBytes: limits.maxTotalBytes ?? 16 * 1024 * 1024,
    maxMatches: limits.maxMatches ?? 200,
    maxLineLength: limits.maxLineLength ?? 300,
    maxEntries: limits.maxEntries ?? 20_000,
    timeoutMs: limits.timeoutMs ?? 5_000,
    walkTimeBudgetMs: limits.walkTimeBudgetMs ?? 10_000,
  };
  return {
    name: NAME,
    description:
      'Search text files in the workspace for lines matching a JavaScript regular expression. Optionally limit to a directory or file (path) and to files matching a glob (e.g. "*.ts").',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'JavaScript regular expression, e.g. "function\\\\s+main".' },
        path: { type: 'string', description: 'Directory or file to search, relative to the root. Default: the root.' },
        glob: { type: 'string', description: 'Only search files whose path matches this glob.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    readOnly: true,
    async execute(input, context?: ToolContext) {
      const args = expectArguments(NAME, input, ['pattern', 'path', 'glob']);
      const pattern = stringArgument(NAME, args, 'pattern', { required: true, maxLength: bounds.maxPatternLength });
      const path = stringArgument(NAME, args, 'path', { required: false, allowEmpty: true });
      const globText = stringArgument(NAME, args, 'glob', { required: false });
      try {
        new RegExp(pattern);
      } catch (error) {
        throw invalidArguments(NAME, `"pattern" is not a valid regular expression: ${(error as Error).message}`);
      }
      const glob = globText === undefined ? undefined : compileGlob(NAME, 'glob', globText, { matchBase: true });
      let collected: Collected;
      try {
        collected = await collectFiles(operations, path, glob?.matches, bounds, context?.signal);
      } catch (error) {
        throw globCostRefusal(NAME, 'glob', error);
      }
      const result = await runRegexJob({ pattern, files: collected.files, ...bounds, signal: context?.signal });
      return formatResult(pattern, collected, result, bounds);
    },
  };
}

interface Collected {
  files: { path: string; text: string }[];
  /** Files not searched, by reason (`binary`, `too large`, `hard-linked`, `changing`). */
  skipped: Map<string, number>;
  /** The file where `maxTotalBytes` stopped collection. */
  bytesStoppedAt: string | undefined;
  walkStop: WalkStop | undefined;
}

const SKIP_REASONS: Partial<Record<string, string>> = {
  too_large: 'over the size limit',
  hard_link: 'hard-linked (may be files outside the workspace)',
};

function skip(collected: Collected, reason: string): void {
  collected.skipped.set(reason, (collected.skipped.get(reason) ?? 0) + 1);
}

/** Files read at once while collecting (reads wait on the disk and the thread pool, not on this thread). */
const READ_AHEAD = 8;

async function collectFiles(
  operations: WorkspaceOperations,
  path: string | undefined,
  matches: ((path: string) => boolean) | undefined,
  bounds: { maxFileBytes: number; maxTotalBytes: number; maxEntries: number; walkTimeBudgetMs: number },
  signal: AbortSignal | undefined,
): Promise<Collected> {
  const collected: Collected = { files: [], skipped: new Map(), bytesStoppedAt: undefined, walkStop: undefined };
  let total = 0;
  const take = (relative: string, bytes: Buffer): void => {
    if (!isText(bytes)) {
      skip(collected, 'binary');
      return;
    }
    total += bytes.length;
    collected.files.push({ path: relative, text: bytes.toString('utf8') });
  };
  // Up to READ_AHEAD reads run at once; they are taken in walk order, with the same rules as one at a time:
  // a file that does not fit in what is left of maxTotalBytes is skipped as too large, and once the total
  // reaches it the next file is where the search stopped.
  const reading: { path: string; read: Promise<Buffer> }[] = [];
  const takeOldest = async (): Promise<'stop' | undefined> => {
    const { path: relative, read } = reading.shift() as { path: string; read: Promise<Buffer> };
    if (total >= bounds.maxTotalBytes) {
      collected.bytesStoppedAt ??= relative;
      return 'stop';
    }
    try {
      const bytes = await read;
      if (bytes.length > bounds.maxTotalBytes - total) skip(collected, SKIP_REASONS.too_large as string);
      else take(relative, bytes);
    } catch (error) {
      if (!WorkspaceError.isInstance(error)) throw error;
      // Too large, hard-linked, or changed while walking: skip it, never follow it.
      skip(collected, SKIP_REASONS[error.code] ?? 'changing or unreadable');
    }
    return undefined;
  };
  try {
    const summary = await operations.walk(
      path,
      async (entry) => {
        if (entry.type !== 'file' || (matches !== undefined && !matches(entry.path))) return undefined;
        if (total >= bounds.maxTotalBytes) {
          collected.bytesStoppedAt ??= reading[0]?.path ?? entry.path;
          return 'stop';
        }
        const read = entry.read(bounds.maxFileBytes);
        read.catch(() => undefined); // observed in takeOldest; this keeps an early stop from leaving it unhandled
        reading.push({ path: entry.path, read });
        while (reading.length >= READ_AHEAD) if ((await takeOldest()) === 'stop') return 'stop';
        return undefined;
      },
      {
        maxEntries: bounds.maxEntries,
        maxDepth: MAX_DEPTH,
        timeBudgetMs: bounds.walkTimeBudgetMs,
        signal,
        gitignore: true,
      },
    );
    collected.walkStop = summary.stop;
  } catch (error) {
    if (!(WorkspaceError.isInstance(error) && error.code === 'not_a_directory' && path !== undefined)) throw error;
    // `path` names a file: search just that one.
    take(path, await operations.readFile(path));
  }
  // The walk waited for every read it let start; what is left is taken in order.
  while (reading.length > 0) if ((await takeOldest()) === 'stop') break;
  return collected;
}

function formatResult(
  pattern: string,
  collected: Collected,
  result: { matches: LineMatch[]; truncated: boolean },
  bounds: { maxMatches: number; maxTotalBytes: number; maxEntries: number; walkTimeBudgetMs: number },
): string {
  const lines = result.matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
  if (lines.length === 0) lines.push(`No matches for /${pattern}/ in ${collected.files.length} files.`);
  if (result.truncated) lines.push(`[stopped at ${bounds.maxMatches} matches; narrow the pattern, path or glob]`);
  if (collected.bytesStoppedAt !== undefined) {
    lines.push(
      `[stopped after reading ${bounds.maxTotalBytes} bytes, at "${collected.bytesStoppedAt}": it and the files after it (in name order) were not searched; narrow path or glob]`,
    );
  }
  if (collected.walkStop !== undefined) {
    lines.push(
      describeWalkStop(collected.walkStop, {
        maxEntries: bounds.maxEntries,
        maxDepth: MAX_DEPTH,
        timeBudgetMs: bounds.walkTimeBudgetMs,
      }),
    );
  }
  if (collected.skipped.size > 0) {
    const parts = [...collected.skipped].map(([reason, count]) => `${count} ${reason}`);
    lines.push(`[files skipped: ${parts.join(', ')}]`);
  }
  return lines.join('\n');
}
