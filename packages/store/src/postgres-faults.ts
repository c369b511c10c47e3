import { ConfigError } from '@bridle/protocol';
import { StoreError } from './store-error';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
]);

function describe(error: unknown): { code: string; detail: string } {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = (error as Error | null)?.message || String(error);
  return { code, detail: code && !message.includes(code) ? `${message} (${code})` : message };
}

/** A failure while connecting to or migrating a Postgres store, as a `ConfigError` that says what to do. */
export function postgresOpenError(error: unknown, where: string, connectTimeoutMs: number): ConfigError {
  if (ConfigError.isInstance(error)) return error;
  const { code, detail } = describe(error);
  let message: string;
  if (UNREACHABLE.has(code) || /timeout|terminated/i.test(detail)) {
    message =
      `cannot reach Postgres at ${where} (waited at most ${connectTimeoutMs} ms): ${detail}. Start the server or fix ` +
      'the host and port in the URL (raise ?connect_timeout=<seconds> for a slow network), or use a SQLite store ' +
      "such as 'sqlite:.bridle/bridle.db'";
  } else if (code === '28P01' || code === '28000') {
    message = `Postgres at ${where} refused the login: ${detail}. Fix the user and password in the URL (or PGPASSWORD)`;
  } else if (code === '3D000') {
    message = `Postgres at ${where}: ${detail}. Create the database (createdb <name>) or fix its name in the URL`;
  } else if (code === '42501') {
    message =
      `Postgres at ${where}: ${detail}. The user may not create Bridle's schema and tables: grant it CREATE on the ` +
      'database (or schema), or open the store once as the owner to apply the migrations';
  } else {
    message = `cannot open the Postgres store at ${where}: ${detail}`;
  }
  return new ConfigError(message, { cause: error });
}

/** A failure of an operation on an open Postgres store, as a `StoreError`; `StoreError`s pass through. */
export function postgresOperationError(error: unknown, where: string): StoreError {
  if (StoreError.isInstance(error)) return error;
  const { code, detail } = describe(error);
  if (code === '23505') {
    return new StoreError(
      'conflict',
      `Postgres store at ${where}: ${detail}; another writer appended the same events`,
      {
        cause: error,
      },
    );
  }
  return new StoreError(
    'unavailable',
    `Postgres store at ${where} failed: ${detail}. Retry when the server is back (a retried appendEvents is safe: ` +
      'events already journaled with the same content are skipped)',
    { cause: error },
  );
}
