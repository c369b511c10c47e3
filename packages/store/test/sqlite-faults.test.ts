import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { sqliteOpenError, sqliteOperationError } from '../src/sqlite-faults';
import { StoreError } from '../src/store-error';

// The SQLite failures the store tests cannot provoke on this machine, mapped from the errors better-sqlite3
// and Node raise (codes and messages as they throw them).
describe('SQLite failures that tests cannot provoke here', () => {
  it('a native addon built for another Node is a ConfigError that says to rebuild or use another store', () => {
    const dlopen = Object.assign(
      new Error(
        "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using " +
          'NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127.',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const error = sqliteOpenError(dlopen, '/data/b.db', 5000);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).toContain("cannot load better-sqlite3's native addon for SQLite store /data/b.db");
    expect(error.message).toContain('npm rebuild better-sqlite3');
    expect(error.cause).toBe(dlopen);
  });

  it('a full disk during an append is unavailable; a damaged page is corrupt', () => {
    const full = sqliteOperationError(
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      '/data/b.db',
      5000,
    );
    expect(StoreError.isInstance(full) && full.code).toBe('store_unavailable');
    expect(full.message).toContain('the disk holding SQLite file /data/b.db is full');
    const damaged = sqliteOperationError(
      Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }),
      '/data/b.db',
      5000,
    );
    expect(damaged.code).toBe('store_corrupt');
    expect(damaged.message).toContain('restore the file from a backup');
  });
});
