import path from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { redactUrl } from './redact-url';

/** The store URL `openStore()` uses when given none: a SQLite file under the working directory (the `bridle` CLI's default keeps one per project in the user's data folder instead). */
export const DEFAULT_STORE_URL = 'sqlite:.bridle/bridle.db';

/** Where a store lives, parsed from its URL. */
export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string; synchronous?: 'full' | 'normal'; busyTimeoutMs?: number }
  | {
      kind: 'postgres';
      connectionString: string;
      schema?: string;
      connectTimeoutMs?: number;
      synchronous?: 'full' | 'normal';
      redacted: string;
    };

const ACCEPTED =
  "accepted forms: 'memory:', 'sqlite:<path>' (optionally '?synchronous=full') or a bare file path (e.g. .bridle/bridle.db), " +
  "'postgres://user:password@host:5432/database' (also 'postgresql://'; '?schema=<name>' picks a schema, '?synchronous=full' waits for the WAL fsync)";

/** Two or more characters, so a Windows drive letter (`C:\...`) reads as a path, not a scheme. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/;

/**
 * Parses a store URL (see `openStore`). Relative SQLite paths are resolved against `cwd`.
 * Throws `ConfigError` naming the (redacted) URL and the accepted forms when it is none of them.
 */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigError(
      `store URL must be a non-empty string, got ${JSON.stringify(url) ?? String(url)}; ${ACCEPTED}`,
    );
  }
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', path: path.resolve(cwd, url) };
  if (scheme === 'memory') {
    if (url.length > 'memory:'.length) throw unknown(url, "'memory:' takes nothing after the colon");
    return { kind: 'memory' };
  }
  if (scheme === 'sqlite') return parseSqlite(url, cwd);
  if (scheme === 'postgres' || scheme === 'postgresql') return parsePostgres(url);
  throw unknown(url, `the scheme '${scheme}:' is not supported`);
}

function parseSqlite(url: string, cwd: string): StoreLocation {
  const rest = url.slice('sqlite:'.length);
  const query = rest.indexOf('?');
  const file = query === -1 ? rest : rest.slice(0, query);
  if (file === '') throw unknown(url, "'sqlite:' needs a file path after the colon");
  if (file.startsWith('//')) {
    throw unknown(url, "write 'sqlite:/absolute/path.db' or 'sqlite:relative/path.db' (no '//')");
  }
  const location: StoreLocation = { kind: 'sqlite', path: path.resolve(cwd, file) };
  if (query === -1) return location;
  for (const [key, value] of new URLSearchParams(rest.slice(query + 1))) {
    if (key === 'synchronous' && (value === 'full' || value === 'normal')) location.synchronous = value;
    else if (key === 'busy_timeout' && /^[1-9][0-9]{0,8}$/.test(value)) location.busyTimeoutMs = Number(value);
    else {
      throw new ConfigError(
        `store URL ${redactUrl(url)}: unknown SQLite parameter ${key}=${JSON.stringify(value)}; ` +
          "accepted: 'synchronous=full|normal', 'busy_timeout=<milliseconds>'",
      );
    }
  }
  return location;
}

function parsePostgres(url: string): StoreLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw unknown(url, 'it is not a valid URL');
  }
  const redacted = () => redactUrl(parsed.href);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  let connectTimeoutMs: number | undefined;
  const timeout = parsed.searchParams.get('connect_timeout');
  if (timeout !== null) {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new ConfigError(
        `store URL ${redacted()}: connect_timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`,
      );
    }
    connectTimeoutMs = Math.round(seconds * 1000);
    parsed.searchParams.delete('connect_timeout');
  }
  const synchronous = parsed.searchParams.get('synchronous');
  if (synchronous !== null && synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigError(
      `store URL ${redacted()}: synchronous must be 'full' or 'normal', got ${JSON.stringify(synchronous)}`,
    );
  }
  parsed.searchParams.delete('synchronous');
  return {
    kind: 'postgres',
    connectionString: parsed.href,
    ...(schema !== undefined && { schema }),
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
    ...(synchronous !== null && { synchronous }),
    redacted: redacted(),
  };
}

function unknown(url: string, why: string): ConfigError {
  return new ConfigError(`unknown store URL ${redactUrl(url)}: ${why}; ${ACCEPTED}`);
}
