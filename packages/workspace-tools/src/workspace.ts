import { type BigIntStats, constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { ConfigError, describeValue } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { entryType, lstatOrUndefined, readSortedNames } from './directory-entries';
import { type DirectoryHandle, sameFile } from './directory-handle';
import { assertRegularFile, assertWritableFile } from './file-checks';
import { IgnoreRules } from './ignore-rules';
import { parsePath } from './path-rules';
import { type CheckedPath, changed, checkPath, errorCode, type Jail, openDirectoryChain } from './path-walk';
import { DEFAULT_PROTECTED, protectedPathMatcher } from './protected-paths';
import { readEntry } from './read-entry';
import { refuseRepositoryLayout } from './repository-layout';
import { readIgnoreFile, walkDirectory } from './walk-directory';
import { WorkspaceError } from './workspace-error';
import type {
  DirectoryEntry,
  DirectoryListing,
  WalkEntry,
  WalkOptions,
  WalkSummary,
  WorkspaceOperations,
  WriteOptions,
  WriteResult,
} from './workspace-operations';
import { writeAtomically } from './write-atomically';

/** Options of {@link Workspace.open}. */
export interface WorkspaceOptions {
  /** Globs (picomatch, case-insensitive, relative to the root) refused for every operation. Default {@link DEFAULT_PROTECTED}. */
  protected?: string[];
  /** Largest file read, in bytes. Default 1 MiB. */
  maxReadBytes?: number;
  /** Largest file written, in bytes. Default 1 MiB. */
  maxWriteBytes?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
/** PATH_MAX of Linux (and more than macOS's 1024, where the kernel refuses longer paths by itself). */
const PATH_MAX = 4096;

/**
 * A directory the model may work in, and nothing outside it. Every path is relative and checked:
 * no absolute paths, no `..`, no backslashes, no symlinks in any component, no protected paths.
 * Each operation checks the path with lstat, then opens it component by component with O_NOFOLLOW
 * and verifies (dev, ino) against the check, so a swap between check and use is refused.
 */
export class Workspace implements WorkspaceOperations {
  /** The real path of the root (symlinks resolved once, at open). */
  readonly root: string;
  readonly maxReadBytes: number;
  readonly maxWriteBytes: number;
  private readonly jail: Jail;
  private readonly protectedTest: (segments: readonly string[]) => boolean;
  private writing: Promise<void> = Promise.resolve();

  private constructor(jail: Jail, options: Required<WorkspaceOptions>) {
    this.jail = jail;
    this.root = jail.root;
    this.maxReadBytes = options.maxReadBytes;
    this.maxWriteBytes = options.maxWriteBytes;
    this.protectedTest = protectedPathMatcher(options.protected);
  }

  /**
   * Opens a workspace on an existing directory: the root's real path (symlinks resolved once) and its
   * identity are checked here, and only here (there is no other way to make a workspace). On Linux, entries
   * are reached through `/proc/self/fd` when that works. Throws `ConfigError` for a bad root or options.
   */
  static async open(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const resolved = resolveOptions(options);
    if (typeof root !== 'string' || root === '' || root.includes('\u0000')) {
      throw new ConfigError(`Workspace root must be a non-empty path string, got ${describeValue(root)}.`);
    }
    let real: string;
    try {
      real = await realpath(root);
    } catch (error) {
      throw new ConfigError(
        `Workspace root "${root}" cannot be opened (${errorCode(error) ?? 'error'}): create it first.`,
        {
          cause: error,
        },
      );
    }
    const handle = await open(real, constants.O_RDONLY | constants.O_DIRECTORY).catch((error: unknown) => {
      throw new ConfigError(`Workspace root "${root}" is not a readable directory (${errorCode(error) ?? 'error'}).`);
    });
    try {
      const stats = await handle.stat({ bigint: true });
      const viaDescriptor = process.platform === 'linux' && (await descriptorPathsWork(handle.fd, stats));
      return new Workspace({ root: real, rootIdentity: stats, viaDescriptor }, resolved);
    } finally {
      await handle.close();
    }
  }

  /** Whether `path` is protected. Never throws (an invalid path is reported as not protected). */
  isProtected(path: string): boolean {
    try {
      return this.protectedTest(parsePath(path, { allowRoot: true }));
    } catch {
      return false;
    }
  }

  /**
   * Checks a model-supplied path with the rules every read and write applies, without opening it: relative,
   * strictly inside the root, no `..`, no symlink in any existing component, not protected, and, when
   * it exists, not a file with several hard links. It may not exist yet. Returns the normalized
   * relative path (`a//./b` is `a/b`). Throws `WorkspaceError`; `label` names the value in messages.
   * Used for `format: 'workspace-path'` preset parameters. The check holds when it is made: a process
   * that can create symlinks (a preset running workspace code) could still swap a component later.
   */
  async checkPath(path: string, options: { label?: string } = {}): Promise<string> {
    const segments = parsePath(path, { label: options.label });
    this.refuseProtected(segments);
    const checked = await checkPath(this.jail, segments);
    const relative = segments.join('/');
    const final = checked.stats.at(-1);
    if (final !== undefined && !final.isDirectory() && final.nlink > 1n) {
      throw new WorkspaceError(
        'hard_link',
        `Refused: "${relative}" has ${final.nlink} hard links; it may be a file outside the workspace.`,
      );
    }
    return relative;
  }

  /** The bytes of a regular file strictly inside the root, at most `maxReadBytes`. */
  async readFile(path: string): Promise<Buffer> {
    const { checked, name, relative } = await this.checkTarget(path);
    const final = checked.stats.at(-1);
    if (final === undefined) throw new WorkspaceError('not_found', `Refused: "${relative}" does not exist.`);
    assertRegularFile(final, relative);
    const directory = await openDirectoryChain(this.jail, checked, checked.segments.length - 1);
    try {
      return await readEntry(directory, name, this.maxReadBytes, final);
    } finally {
      await directory.close();
    }
  }

  /**
   * Writes a file strictly inside the root atomically: a temp file in the same directory (O_EXCL,
   * O_NOFOLLOW), then rename. Creates missing parent directories one at a time inside the root.
   * Refuses hard-linked targets, content over `maxWriteBytes`, and a write that would plant or enter a
   * git repository layout (see {@link refuseRepositoryLayout}) before touching anything. Writes are
   * serialized. With
   * `expectedContent`, the file must still hold exactly those bytes (checked through the verified
   * directory just before the rename), so an edit never overwrites a change made since its read.
   */
  async writeFile(path: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<WriteResult> {
    // One write at a time: the repository layout check below must see what the previous write made.
    const run = this.writing.then(() => this.writeNow(path, content, options));
    this.writing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async writeNow(path: string, content: string | Uint8Array, options: WriteOptions): Promise<WriteResult> {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const { checked, name, relative } = await this.checkTarget(path);
    await refuseRepositoryLayout(this.root, checked.segments);
    if (data.length > this.maxWriteBytes) {
      throw new WorkspaceError(
        'too_large',
        `Refused: the content for "${relative}" is ${data.length} bytes, above the write limit of ${this.maxWriteBytes} bytes.`,
      );
    }
    const final = checked.stats.at(-1);
    if (final !== undefined) assertWritableFile(final, relative);
    const directory = await openDirectoryChain(this.jail, checked, checked.segments.length - 1, { create: true });
    try {
      // The check above may be stale: look again, through the verified directory.
      const current = await lstatOrUndefined(directory.entryPath(name), relative);
      if (current !== undefined) assertWritableFile(current, relative);
      if ((final === undefined) !== (current === undefined) || (final && current && !sameFile(final, current))) {
        throw changed(`"${relative}"`, 'was created, deleted or replaced');
      }
      if (options.expectedContent !== undefined) {
        const now = current === undefined ? undefined : await readEntry(directory, name, this.maxReadBytes, current);
        if (now === undefined || !now.equals(options.expectedContent)) {
          throw changed(`"${relative}"`, 'was changed by someone else since it was read');
        }
      }
      await writeAtomically(directory, name, data, current);
      return { path: relative, bytes: data.length, created: current === undefined };
    } finally {
      await directory.close();
    }
  }

  /** Lists a directory (the root for `"."` or undefined), sorted, protected entries left out. */
  async listDirectory(path: string | undefined, maxEntries: number): Promise<DirectoryListing> {
    const directory = await this.openExistingDirectory(path);
    try {
      const names = await readSortedNames(directory);
      const entries: DirectoryEntry[] = [];
      let truncated = false;
      for (const dirent of names) {
        if (this.protectedTest([...directory.relative.split('/').filter(Boolean), dirent.name])) continue;
        if (entries.length >= maxEntries) {
          truncated = true;
          break;
        }
        const stats = await lstatOrUndefined(directory.entryPath(dirent.name), dirent.name);
        if (stats === undefined) continue;
        const type = entryType(stats);
        entries.push(
          type === 'file' ? { name: dirent.name, type, size: Number(stats.size) } : { name: dirent.name, type },
        );
      }
      return { path: directory.relative === '' ? '.' : directory.relative, entries, truncated };
    } finally {
      await directory.close();
    }
  }

  /** Walks a directory depth first without following symlinks; see {@link WorkspaceOperations.walk}. */
  async walk(
    path: string | undefined,
    visit: (entry: WalkEntry) => undefined | 'skip' | 'stop' | Promise<undefined | 'skip' | 'stop'>,
    options: WalkOptions,
  ): Promise<WalkSummary> {
    const directory = await this.openExistingDirectory(path);
    try {
      const rules = options.gitignore ? await this.inheritedIgnoreRules(directory.relative) : undefined;
      return await walkDirectory(this.jail, directory, this.protectedTest, visit, options, rules);
    } finally {
      await directory.close();
    }
  }

  /**
   * The ignore rules that apply above a walk's start: `.git/info/exclude`, then the `.gitignore` of the
   * root and of each directory down to the start's parent (the start's own is read by the walk). When the
   * start itself is ignored, the caller named it explicitly: it is searched, without those rules.
   */
  private async inheritedIgnoreRules(start: string): Promise<IgnoreRules> {
    let rules = IgnoreRules.empty().with([], await this.readInternal(['.git', 'info'], 'exclude'));
    const segments = start === '' ? [] : start.split('/');
    for (let depth = 0; depth < segments.length; depth++) {
      rules = rules.with(segments.slice(0, depth), await this.readInternal(segments.slice(0, depth), '.gitignore'));
    }
    if (segments.length > 0 && rules.ignores(segments, true)) return IgnoreRules.empty();
    return rules;
  }

  /** Reads a file for the walk's own use (protected directories included); `undefined` on any problem. */
  private async readInternal(directorySegments: string[], name: string): Promise<string | undefined> {
    try {
      const checked = await checkPath(this.jail, directorySegments);
      if (checked.stats.some((stats) => stats === undefined || !stats.isDirectory())) return undefined;
      const directory = await openDirectoryChain(this.jail, checked, directorySegments.length);
      try {
        return await readIgnoreFile(directory, name);
      } finally {
        await directory.close();
      }
    } catch {
      return undefined;
    }
  }

  /**
   * Runs `use` with a path that reaches a verified directory inside the workspace (the root for
   * `"."` or undefined); the path stays valid until `use` settles. Used as a command's cwd.
   */
  async withDirectory<T>(path: string | undefined, use: (directoryPath: string) => T | Promise<T>): Promise<T> {
    const directory = await this.openExistingDirectory(path);
    try {
      return await use(directory.path);
    } finally {
      await directory.close();
    }
  }

  /**
   * The check phase reaches entries by absolute path: refuse what would pass PATH_MAX with the root in
   * front (the write, going through descriptors, would succeed and every later read fail).
   */
  private refuseTooLong(segments: readonly string[]): void {
    const bytes = Buffer.byteLength(this.root) + Buffer.byteLength(segments.join('/')) + 1;
    if (bytes >= PATH_MAX) {
      throw new WorkspaceError(
        'invalid_path',
        `Refused: path "${segments.join('/').slice(0, 80)}..." is ${bytes} bytes long with the workspace root in front; the system limit is ${PATH_MAX}. Use a shorter path.`,
      );
    }
  }

  private refuseProtected(segments: readonly string[]): void {
    this.refuseTooLong(segments);
    if (segments.length > 0 && this.protectedTest(segments)) {
      throw new WorkspaceError(
        'protected_path',
        `Refused: "${segments.join('/')}" is a protected path (matches one of the workspace's protected patterns).`,
      );
    }
  }

  private async checkTarget(path: string): Promise<{ checked: CheckedPath; name: string; relative: string }> {
    const segments = parsePath(path);
    this.refuseProtected(segments);
    const checked = await checkPath(this.jail, segments);
    return { checked, name: segments.at(-1)!, relative: segments.join('/') };
  }

  private async openExistingDirectory(path: string | undefined): Promise<DirectoryHandle> {
    const segments = parsePath(path, { allowRoot: true });
    this.refuseProtected(segments);
    const checked = await checkPath(this.jail, segments);
    const final = checked.stats.at(-1);
    const relative = segments.join('/');
    if (segments.length > 0 && final === undefined) {
      throw new WorkspaceError('not_found', `Refused: directory "${relative}" does not exist.`);
    }
    if (final !== undefined && !final.isDirectory()) {
      throw new WorkspaceError('not_a_directory', `Refused: "${relative}" is not a directory.`);
    }
    return openDirectoryChain(this.jail, checked, segments.length);
  }
}

async function descriptorPathsWork(fd: number, expected: BigIntStats): Promise<boolean> {
  try {
    const seen = await stat(`/proc/self/fd/${fd}`, { bigint: true });
    return seen.dev === expected.dev && seen.ino === expected.ino;
  } catch {
    return false;
  }
}

function resolveOptions(options: WorkspaceOptions): Required<WorkspaceOptions> {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(`Workspace options must be an object, got ${describeValue(options)}.`);
  }
  const patterns = options.protected ?? [...DEFAULT_PROTECTED];
  if (!Array.isArray(patterns) || patterns.some((pattern) => typeof pattern !== 'string' || pattern === '')) {
    throw new ConfigError('Workspace option "protected" must be an array of non-empty glob strings.');
  }
  return {
    protected: patterns,
    maxReadBytes: integerOption('maxReadBytes', options.maxReadBytes, DEFAULT_MAX_BYTES, {
      min: 1,
      where: 'Workspace',
    }),
    maxWriteBytes: integerOption('maxWriteBytes', options.maxWriteBytes, DEFAULT_MAX_BYTES, {
      min: 1,
      where: 'Workspace',
    }),
  };
}
