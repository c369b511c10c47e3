import { type LedgerDay, type LedgerReservation, type QuotaLedger, toMicros } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import { Redis } from 'ioredis';

// Every window is taken from Redis's own clock (TIME), never from the caller's: processes whose clocks
// disagree (skew between machines) still count into one minute and one UTC day.
const PREAMBLE = `
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/** KEYS[1]: the tenant's minute key prefix. Returns { count, resetMs }. */
const COUNT_REQUEST = `${PREAMBLE}
local window = math.floor(nowMs / 60000)
local key = KEYS[1] .. ':' .. window
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, 120000) end
return { count, (window + 1) * 60000 - nowMs }`;

/**
 * KEYS[1]: the tenant's day key prefix. ARGV: tokens, micro-dollars, token limit (-1: none), micro-dollar
 * limit (-1: none), '1' to check the limits. Returns { ok (1/0), tokens, micros, resetMs, quota }.
 */
const RESERVE = `${PREAMBLE}
local window = math.floor(nowMs / 86400000)
local key = KEYS[1] .. ':' .. window
local tokens = tonumber(redis.call('HGET', key, 'tokens') or '0')
local micros = tonumber(redis.call('HGET', key, 'micros') or '0')
local addTokens = tonumber(ARGV[1])
local addMicros = tonumber(ARGV[2])
local resetMs = (window + 1) * 86400000 - nowMs
if ARGV[5] == '1' then
  local tokenLimit = tonumber(ARGV[3])
  local microLimit = tonumber(ARGV[4])
  if tokenLimit >= 0 and tokens + addTokens > tokenLimit then return { 0, tokens, micros, resetMs, 'tokensPerDay' } end
  if microLimit >= 0 and micros + addMicros > microLimit then return { 0, tokens, micros, resetMs, 'costUsdPerDay' } end
end
if addTokens ~= 0 then tokens = redis.call('HINCRBY', key, 'tokens', addTokens) end
if addMicros ~= 0 then micros = redis.call('HINCRBY', key, 'micros', addMicros) end
redis.call('PEXPIRE', key, 172800000)
return { 1, tokens, micros, resetMs, '' }`;

type RedisClient = {
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
};

/**
 * The ledger every server process and worker of a deployment shares: counters in Redis under
 * `<prefix>:quota:<tenant>:...`, changed by Lua scripts (one atomic step each), windows from Redis's clock.
 */
export class RedisQuotaLedger implements QuotaLedger {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #owned: boolean;

  private constructor(redis: RedisClient, prefix: string, owned: boolean) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#owned = owned;
  }

  /** Connects to `url`; rejects with a `ConfigError` naming the problem when Redis cannot be reached within 5 s. */
  static async open(url: string, prefix: string): Promise<RedisQuotaLedger> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000 });
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      throw new ConfigError(
        `The quota ledger cannot reach Redis (BRIDLE_REDIS_URL): ${(error as Error).message}. Start Redis or fix the URL.`,
      );
    }
    return new RedisQuotaLedger(redis as unknown as RedisClient, prefix, true);
  }

  /** A ledger on a connection its caller owns (a worker's): `close()` leaves the connection open. */
  static over(redis: Redis, prefix: string): RedisQuotaLedger {
    return new RedisQuotaLedger(redis as unknown as RedisClient, prefix, false);
  }

  #key(tenant: string, kind: 'minute' | 'day'): string {
    return `${this.#prefix}:quota:${tenant}:${kind}`;
  }

  async countRequest(tenant: string): Promise<{ count: number; resetMs: number }> {
    const [count, resetMs] = (await this.#redis.eval(COUNT_REQUEST, 1, this.#key(tenant, 'minute'))) as number[];
    return { count: count as number, resetMs: resetMs as number };
  }

  async #reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number } | undefined,
  ): Promise<LedgerReservation> {
    const answer = (await this.#redis.eval(
      RESERVE,
      1,
      this.#key(tenant, 'day'),
      Math.round(amount.tokens),
      toMicros(amount.costUsd),
      limits?.tokensPerDay ?? -1,
      limits?.costUsdPerDay === undefined ? -1 : toMicros(limits.costUsdPerDay),
      limits === undefined ? '0' : '1',
    )) as [number, number, number, number, string];
    const day: LedgerDay = { tokens: answer[1], costUsd: answer[2] / 1_000_000, resetMs: answer[3] };
    return answer[0] === 1 ? { ok: true, ...day } : { ok: false, quota: answer[4] as 'tokensPerDay', ...day };
  }

  reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number },
  ): Promise<LedgerReservation> {
    return this.#reserve(tenant, amount, limits);
  }

  async add(tenant: string, amount: { tokens: number; costUsd: number }): Promise<void> {
    await this.#reserve(tenant, amount, undefined);
  }

  async day(tenant: string): Promise<LedgerDay> {
    const { tokens, costUsd, resetMs } = await this.#reserve(tenant, { tokens: 0, costUsd: 0 }, undefined);
    return { tokens, costUsd, resetMs };
  }

  async close(): Promise<void> {
    if (!this.#owned) return;
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
