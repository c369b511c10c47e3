/** The kind of a directory entry. Symlinks are reported, never followed. */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

/** One entry of a directory listing. `size` in bytes, for files only. */
export interface DirectoryEntry {
  name: string;
  type: EntryType;
  size?: number;
}

/** A directory listing, sorted by name. `truncated` when more entries existed than the limit. */
export interface DirectoryListing {
  path: string;
  entries: DirectoryEntry[];
  truncated: boolean;
}

/** What a write did. `bytes` written; `created` when the file did not exist before. */
export interface WriteResult {
  path: string;
  bytes: number;
  created: boolean;
}

/** Options of {@link WorkspaceOperations.writeFile}. */
export interface WriteOptions {
  /** Write only if the file exists and still holds exactly these bytes (compare and swap). */
  expectedContent?: Uint8Array;
}

/** One entry met by {@link WorkspaceOperations.walk}. */
export interface WalkEntry {
  /** Relative to the workspace root, "/"-separated. */
  path: string;
  type: EntryType;
  /**
   * Reads this file (if it is one), at most `maxBytes`, through the verified directory. It may be called
   * during `visit` without awaiting it (to read several files at once): the walk keeps the directory open
   * until every read started in it settled. Not after the walk returned.
   */
  read(maxBytes: number): Promise<Buffer>;
}

/** Bounds of a walk. */
export interface WalkOptions {
  /** Stop after visiting this many entries. */
  maxEntries: number;
  /** Do not descend deeper than this many directories below the start. */
  maxDepth: number;
  /** Stop after this much wall time, in milliseconds. Default: no limit. */
  timeBudgetMs?: number;
  /** Checked at every entry: once aborted, the walk throws (`code: 'aborted'`). */
  signal?: AbortSignal;
  /**
   * Skip what git ignores: `.gitignore` files (nested ones, negations) and `.git/info/exclude`, and always
   * `.git` and `node_modules`. Skipped entries are not visited and do not count. Default false.
   */
  gitignore?: boolean;
}

/** Why a walk ended early: a bound, and the path where it took effect. */
export interface WalkStop {
  /** `entries`: `maxEntries` visited; `time`: `timeBudgetMs` spent; `depth`: directories below `maxDepth` left out. */
  reason: 'entries' | 'time' | 'depth';
  /** The entry the walk stopped at (`entries`, `time`; it and those after it in name order were not visited), or the first directory not entered (`depth`). */
  at: string;
}

/** What a walk saw. `truncated` when a bound stopped it early; `stop` says which bound and where. */
export interface WalkSummary {
  visited: number;
  truncated: boolean;
  stop?: WalkStop;
}

/**
 * The sandbox seam: every file tool goes through this interface and nothing else, so a different
 * sandbox (in memory, remote, a container) can stand in for {@link Workspace}. Implementations throw
 * an `Error` with a clear message to refuse, and touch nothing when they refuse.
 */
export interface WorkspaceOperations {
  /** Largest file `readFile` returns, in bytes. */
  readonly maxReadBytes: number;
  /** Largest content `writeFile` accepts, in bytes. */
  readonly maxWriteBytes: number;
  /** Whether a relative path is protected (refused for every operation). Never throws. */
  isProtected(path: string): boolean;
  /** The bytes of a regular file strictly inside the root. */
  readFile(path: string): Promise<Buffer>;
  /**
   * Replaces or creates a file strictly inside the root, atomically; creates parent directories.
   * With `expectedContent`, refuses unless the file still holds exactly those bytes.
   */
  writeFile(path: string, content: string | Uint8Array, options?: WriteOptions): Promise<WriteResult>;
  /** Lists a directory (`"."` or undefined for the root), leaving out protected entries. */
  listDirectory(path: string | undefined, maxEntries: number): Promise<DirectoryListing>;
  /**
   * Visits entries under a directory depth first, in name order, without following symlinks and
   * skipping protected paths. `visit` returns `'skip'` to not descend, `'stop'` to end the walk.
   */
  walk(
    path: string | undefined,
    visit: (entry: WalkEntry) => undefined | 'skip' | 'stop' | Promise<undefined | 'skip' | 'stop'>,
    options: WalkOptions,
  ): Promise<WalkSummary>;
}
