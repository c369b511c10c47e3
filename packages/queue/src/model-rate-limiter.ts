import { randomUUID } from 'node:crypto';
import { ConfigError, describeValue, type Model, type ModelRequest, ProviderError } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { Redis } from 'ioredis';
import { queueKeys } from './names';

/** Most model calls per model id in a window, counted across every worker of the queue. */
export interface RateLimit {
  /** Calls allowed per window; a positive integer. */
  max: number;
  /** The window, in ms (1000 for `N/s`, 60000 for `N/min`). */
  durationMs: number;
}

// One round trip: honour a provider pause first, then a sliding-window log of the model's calls. Returns
// 0 when the call may go now (and records it), else the ms to wait. Redis's clock, so workers agree.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local max = tonumber(ARGV[1])
if max <= 0 then return 0 end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= max then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0`;

// Extends a model's pause to `ms` from now unless a longer one is set.
const PAUSE = `
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 0`;

/** Parses `N/s`, `N/sec`, `N/m`, `N/min` (also `N/second`, `N/minute`) into a {@link RateLimit}; throws `ConfigError`. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(s|sec|second|m|min|minute)\s*$/i.exec(String(text));
  const max = match ? Number(match[1]) : 0;
  if (!match || !Number.isSafeInteger(max) || max <= 0)
    throw new ConfigError(
      `Invalid rate limit ${describeValue(text)}: expected <calls>/s or <calls>/min with a positive whole number, e.g. 10/s or 500/min.`,
    );
  return { max, durationMs: (match[2] as string).toLowerCase().startsWith('s') ? 1000 : 60_000 };
}

/** Checks a {@link RateLimit} object; throws `ConfigError` naming the bad field. */
export function checkRateLimit(limit: RateLimit): RateLimit {
  if (typeof limit !== 'object' || limit === null) throw new ConfigError(`rateLimit must be { max, durationMs }.`);
  if (!Number.isSafeInteger(limit.max) || limit.max <= 0)
    throw new ConfigError(`rateLimit.max must be a positive integer, got ${describeValue(limit.max)}.`);
  if (!Number.isSafeInteger(limit.durationMs) || limit.durationMs <= 0)
    throw new ConfigError(`rateLimit.durationMs must be a positive integer, got ${describeValue(limit.durationMs)}.`);
  return limit;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/** The scripts `ModelGate` defines on its connection. */
interface ScriptCommands {
  bridleAcquire(rateKey: string, pauseKey: string, max: string, windowMs: string, member: string): Promise<unknown>;
  bridlePause(pauseKey: string, ms: string): Promise<unknown>;
}

/** The shared limiter of one queue: every model call of every worker passes through {@link ModelGate.wrap}. */
export class ModelGate {
  readonly #keys;
  constructor(
    readonly redis: Redis,
    prefix: string,
    readonly limit: RateLimit | undefined,
  ) {
    this.#keys = queueKeys(prefix);
    // Sent once, then called by its SHA (EVALSHA): one small command per model call.
    redis.defineCommand('bridleAcquire', { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand('bridlePause', { numberOfKeys: 1, lua: PAUSE });
  }

  /** Waits until a call to `modelId` may go (a provider pause is over, the window has room), then counts it. */
  async acquire(modelId: string, signal: AbortSignal): Promise<void> {
    for (;;) {
      const wait = Number(
        await (this.redis as unknown as ScriptCommands).bridleAcquire(
          this.#keys.rate(modelId),
          this.#keys.pause(modelId),
          String(this.limit?.max ?? 0),
          String(this.limit?.durationMs ?? 0),
          randomUUID(),
        ),
      );
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }

  /** Holds every worker's calls to `modelId` for `ms` (a provider's Retry-After). */
  async pause(modelId: string, ms: number): Promise<void> {
    await (this.redis as unknown as ScriptCommands).bridlePause(this.#keys.pause(modelId), String(Math.ceil(ms)));
  }

  /** `model`, with each call waiting for {@link acquire}, and a 429 with Retry-After pausing the model everywhere. */
  wrap(model: Model): Model {
    const gate = this;
    // The counters are keyed by the model id without credentials: Redis never holds an endpoint's password.
    const key = redactCredentials(model.id);
    const noteRateLimit = async (error: unknown) => {
      if (ProviderError.isInstance(error) && error.code === 'rate_limited' && error.retryAfterMs !== undefined)
        await gate.pause(key, error.retryAfterMs).catch(() => {});
    };
    const wrapped: Model = {
      id: model.id,
      async generate(request: ModelRequest) {
        await gate.acquire(key, request.signal);
        try {
          return await model.generate(request);
        } catch (error) {
          await noteRateLimit(error);
          throw error;
        }
      },
    };
    if (model.stream) {
      const stream = model.stream.bind(model);
      wrapped.stream = async function* (request: ModelRequest) {
        await gate.acquire(key, request.signal);
        try {
          yield* stream(request);
        } catch (error) {
          await noteRateLimit(error);
          throw error;
        }
      };
    }
    return wrapped;
  }
}
