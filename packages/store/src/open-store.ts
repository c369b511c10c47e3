import { ConfigError, describeValue, type Store } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './limits';
import { MemoryStore } from './memory-store';
import { DEFAULT_STORE_URL, parseStoreUrl } from './parse-store-url';
import { type RecoverRunsOptions, recoverRuns } from './recover-runs';

/** Options of {@link openStore}; each applies to the kinds of store named in its description. */
export interface OpenStoreOptions {
  /** Folder that a relative SQLite path is resolved against (default `process.cwd()`). */
  cwd?: string;
  /**
   * SQLite: how long a write waits for another process's lock before failing, in ms (default 5000; also
   * `?busy_timeout=` on a `sqlite:` URL). Writes are synchronous, so this also bounds how long one blocks.
   */
  busyTimeoutMs?: number;
  /**
   * How durable a resolved append is (also `?synchronous=` on the URL). `'normal'` (default): it survives
   * a crash of the process that appended (SIGKILL, OOM) — SQLite in WAL mode without an fsync per append;
   * Postgres with `synchronous_commit = off` for the append's transaction (the database server writes it
   * within a fraction of a second; a crash of the database server's machine may lose that last fraction).
   * `'full'`: it survives power loss and OS crashes too, at the price of an fsync per append (milliseconds
   * on many disks) — SQLite `synchronous=FULL`; Postgres the server's own `synchronous_commit`. Neither
   * setting can corrupt the journal.
   */
  synchronous?: 'full' | 'normal';
  /** Postgres: the schema for Bridle's tables, created when missing (default `public`; overrides `?schema=`). */
  schema?: string;
  /** Postgres: bound on connecting, and on waiting for a free pooled connection, in ms (default 10000). */
  connectTimeoutMs?: number;
  /** Postgres: most pooled connections (default 10). */
  poolSize?: number;
  /**
   * `memory:`: most run journals kept (default 1000); beyond it the run appended to least recently that is
   * not running is forgotten.
   */
  maxRuns?: number;
  /** `memory:`: most sessions kept (default 1000); beyond it the session saved least recently is forgotten. */
  maxSessions?: number;
  /** Longest JSON text of one event, in characters (default 8 Mi). */
  maxEventChars?: number;
  /** Longest JSON text of one session, in characters (default 64 Mi). */
  maxSessionChars?: number;
  /**
   * Recover runs whose owner died (see {@link recoverRuns}): at open and every `intervalMs` (default 10 s),
   * runs that are `running` with an expired lease are claimed and handed to `resume`; with many processes on
   * one database each orphan is resumed by exactly one. `true` takes the defaults; an object sets `owner`,
   * `leaseMs`, `intervalMs`, `batch`, `onError`. Needs `resume`. `close()` stops it. Default off.
   */
  recover?: boolean | Omit<RecoverRunsOptions, 'resume'>;
  /** With `recover`: continues one orphaned run (see {@link RecoverRunsOptions.resume}). */
  resume?: RecoverRunsOptions['resume'];
}

/**
 * Opens a store for run journals and sessions, applying pending schema migrations first:
 * - `'memory:'`: in this process, for tests (each call is a new, empty store);
 * - `'sqlite:<path>'` (`?synchronous=full|normal`, `?busy_timeout=ms`) or a bare path (`.bridle/bridle.db`,
 *   `/var/lib/bridle.db`): a SQLite file through better-sqlite3 in WAL mode, folders and file created as
 *   needed; several processes may share one file;
 * - `'postgres://user:password@host:5432/db'` (or `postgresql://`; `?schema=name`, `?connect_timeout=seconds`):
 *   Postgres through a `pg` pool; many processes may share one database.
 *
 * Without a URL it opens {@link DEFAULT_STORE_URL} (`sqlite:.bridle/bridle.db` under `cwd`); it never
 * reads `BRIDLE_STORE` itself (the apps do). Throws `ConfigError`, with the fix and the
 * URL's credentials redacted, for an unknown scheme, an unreachable or refusing Postgres (within
 * `connectTimeoutMs`), a locked, read-only or foreign SQLite file, or a schema newer than this package knows.
 */
export async function openStore(url: string = DEFAULT_STORE_URL, options: OpenStoreOptions = {}): Promise<Store> {
  const { recover, resume } = options;
  if (recover !== undefined && recover !== false && typeof resume !== 'function') {
    throw new ConfigError(
      'openStore: recover needs resume: (orphan, store) => resumeRun({ ...agent, store, runId: orphan.runId, ownership: { lease: orphan } })',
    );
  }
  const store = await openKind(url, options);
  if (recover === undefined || recover === false) return store;
  const recovery = recoverRuns(store, {
    ...(recover === true ? {} : recover),
    resume: resume as RecoverRunsOptions['resume'],
  });
  const close = store.close.bind(store);
  store.close = () => {
    recovery.stop();
    return close();
  };
  return store;
}

async function openKind(url: string, options: OpenStoreOptions): Promise<Store> {
  const location = parseStoreUrl(url, options.cwd);
  const limits: StoreLimits = {
    maxEventChars: integerOption('maxEventChars', options.maxEventChars, DEFAULT_STORE_LIMITS.maxEventChars, {
      min: 1,
      where: 'openStore',
    }),
    maxSessionChars: integerOption('maxSessionChars', options.maxSessionChars, DEFAULT_STORE_LIMITS.maxSessionChars, {
      min: 1,
      where: 'openStore',
    }),
  };
  if (location.kind === 'memory') {
    return new MemoryStore(limits, {
      maxRuns: integerOption('maxRuns', options.maxRuns, 1000, { min: 1, where: 'openStore' }),
      maxSessions: integerOption('maxSessions', options.maxSessions, 1000, { min: 1, where: 'openStore' }),
    });
  }
  const synchronous = options.synchronous ?? location.synchronous ?? 'normal';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigError(`openStore: synchronous must be 'full' or 'normal', got ${describeValue(synchronous)}`);
  }
  if (location.kind === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite-store');
    return openSqliteStore(location.path, {
      limits,
      busyTimeoutMs: integerOption('busyTimeoutMs', options.busyTimeoutMs, location.busyTimeoutMs ?? 5000, {
        min: 1,
        where: 'openStore',
      }),
      synchronous,
    });
  }
  const { openPostgresStore } = await import('./postgres-store');
  return openPostgresStore({
    connectionString: location.connectionString,
    redacted: location.redacted,
    schema: options.schema ?? location.schema ?? 'public',
    limits,
    connectTimeoutMs: integerOption('connectTimeoutMs', options.connectTimeoutMs, location.connectTimeoutMs ?? 10_000, {
      min: 1,
      where: 'openStore',
    }),
    poolSize: integerOption('poolSize', options.poolSize, 10, { min: 1, where: 'openStore' }),
    synchronous,
  });
}
