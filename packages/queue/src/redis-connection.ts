import { ConfigError } from '@bridle/protocol';
import { Redis, type RedisOptions } from 'ioredis';

/** A Redis URL with its password replaced by `***`, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return '<unparsable URL>';
  }
}

/** Checks a Redis URL (`redis://[user:password@]host[:port][/db]` or `rediss://` for TLS); throws `ConfigError`. */
export function checkRedisUrl(url: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') || parsed.hostname === '') {
    const shown = typeof url === 'string' ? JSON.stringify(url.replace(/:[^:@/]*@/, ':***@')) : String(url);
    throw new ConfigError(
      `Invalid Redis URL ${shown}: expected redis://host:port (e.g. redis://127.0.0.1:6379), or rediss:// for TLS.`,
    );
  }
  return url as string;
}

/**
 * Connects to Redis once, to fail early with a clear `ConfigError` when it cannot be reached (a wrong
 * URL, Redis down, a wrong password), instead of retrying silently for ever. Resolves when it answers PING.
 */
export async function checkRedisReachable(url: string, timeoutMs: number): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let cause: unknown;
  client.on('error', (error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const reason = ((cause ?? error) as Error).message?.replace(/\.$/, '') || String(cause ?? error);
    throw new ConfigError(
      `Cannot reach Redis at ${redactRedisUrl(url)}: ${reason}. Start Redis there, or give the right URL (--redis / BRIDLE_REDIS_URL).`,
      { cause: error },
    );
  } finally {
    client.disconnect();
  }
}

/**
 * A connection for long-lived use: it reconnects with capped backoff forever and queues commands while
 * Redis is away (BullMQ workers need `maxRetriesPerRequest: null`).
 */
export function openRedis(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 3000),
    ...extra,
  });
}
