import { ConfigError } from '@bridle/protocol';
import { StoreError } from './store-error';

function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function explain(
  error: unknown,
  file: string,
  busyTimeoutMs: number,
): { message: string; kind: 'unavailable' | 'corrupt' } {
  const code = sqliteCode(error);
  const detail = `${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return {
      kind: 'unavailable',
      message:
        `SQLite file ${file} is locked by another connection (waited ${busyTimeoutMs} ms): ${detail}. ` +
        'Let the other process finish (or close a sqlite3 shell holding a transaction), or raise busyTimeoutMs',
    };
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return {
      kind: 'unavailable',
      message:
        `SQLite file ${file} is read-only: ${detail}. Make the file, its -wal and -shm files and its folder ` +
        'writable by this user, or pick another store (--store / BRIDLE_STORE)',
    };
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return {
      kind: 'unavailable',
      message: `cannot open SQLite file ${file}: ${detail}. Check the path and that this user may read and write it and its folder`,
    };
  }
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return {
      kind: 'corrupt',
      message: `${file} is not a SQLite database or is damaged: ${detail}. Pick another path, or restore the file from a backup`,
    };
  }
  if (code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION|bindings file|better_sqlite3\.node/.test(detail)) {
    return {
      kind: 'unavailable',
      message:
        `cannot load better-sqlite3's native addon for SQLite store ${file} in Node ${process.version}: ${detail}. ` +
        "Reinstall dependencies with this Node (npm rebuild better-sqlite3), or use a 'postgres://' or 'memory:' store",
    };
  }
  if (code.startsWith('SQLITE_FULL')) {
    return {
      kind: 'unavailable',
      message: `the disk holding SQLite file ${file} is full: ${detail}. Free space and retry`,
    };
  }
  return { kind: 'unavailable', message: `SQLite store ${file} failed: ${detail}` };
}

/** A failure while opening a SQLite store, as a `ConfigError` that says what to do. */
export function sqliteOpenError(error: unknown, file: string, busyTimeoutMs: number): ConfigError {
  if (ConfigError.isInstance(error)) return error;
  return new ConfigError(explain(error, file, busyTimeoutMs).message, { cause: error });
}

/** A failure of an operation on an open SQLite store, as a `StoreError`; `StoreError`s pass through. */
export function sqliteOperationError(error: unknown, file: string, busyTimeoutMs: number): StoreError {
  if (StoreError.isInstance(error)) return error;
  const { kind, message } = explain(error, file, busyTimeoutMs);
  return new StoreError(kind, message, { cause: error });
}
