import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** The identity of a file system object: the same `dev` and `ino` means the same object. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** True when two stats describe the same object. */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * An open, verified directory inside the workspace. Names inside it are reached through the open
 * descriptor (`/proc/self/fd/N/name` on Linux, the kernel's `openat` in path form), so swapping a
 * parent directory for a symlink after the check cannot redirect the operation. Where `/proc` is
 * missing, it falls back to the absolute path, with every open still verified against the check.
 */
export class DirectoryHandle {
  constructor(
    private readonly handle: FileHandle,
    /** The directory's absolute path at check time (for messages and the fallback). */
    readonly absolute: string,
    /** The directory's path relative to the workspace root ("" for the root). */
    readonly relative: string,
    private readonly viaDescriptor: boolean,
    /** What the directory was verified to be. */
    readonly stats: BigIntStats,
  ) {}

  /** A path that reaches this very directory. */
  get path(): string {
    return this.viaDescriptor ? `/proc/self/fd/${this.handle.fd}` : this.absolute;
  }

  /** A path that reaches `name` inside this very directory. `name` must be a single segment. */
  entryPath(name: string): string {
    return this.viaDescriptor ? `/proc/self/fd/${this.handle.fd}/${name}` : join(this.absolute, name);
  }

  /** The relative path of `name` inside this directory. */
  childRelative(name: string): string {
    return this.relative === '' ? name : `${this.relative}/${name}`;
  }

  /** Closes the descriptor. Never throws. */
  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
