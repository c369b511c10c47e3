import { ConfigError, describeValue } from '@bridle/protocol';
import type { ServerOptions } from './server-options';

/** Where the server keeps runs and sessions unless `BRIDLE_STORE` or `store` says otherwise. */
export const SERVER_DEFAULT_STORE_URL = 'memory:';

/** Every numeric and network setting of the server, with defaults applied and checked. */
export interface ServerConfig {
  host: string;
  port: number;
  apiToken?: string;
  /** `BRIDLE_API_KEYS_FILE`: the JSON file of named keys (hashed) with their tenants, scopes and quotas. */
  apiKeysFile?: string;
  /** Host names (lower case, no port) accepted in `Host` besides the loopback ones. */
  allowedHosts: string[];
  /** Origins (`scheme://host[:port]`) allowed by CORS and to make state-changing requests; empty: CORS off. */
  corsOrigins: string[];
  /** Requests per window per API token (else per client address) on `/api`, `/v1` and `/openapi.json`; none: no limit. */
  rateLimit?: RateLimit;
  /**
   * `BRIDLE_STORE`: where runs are journaled and sessions kept (`memory:`, `sqlite:<path>`, `postgres://...`);
   * default `memory:` (SPEC: the server keeps runs only when told where; the CLI's default is its SQLite
   * file). Undefined when the options gave a `Store` object.
   */
  storeUrl?: string;
  /** `BRIDLE_WORKSPACE`: the folder the `coding` skill may read, edit and run commands in (as given). */
  workspace?: string;
  /** `BRIDLE_SANDBOX`: offer the `shell` tool, in a bubblewrap sandbox over the workspace. */
  sandbox: boolean;
  /** `BRIDLE_SANDBOX_NETWORK`: sandboxed commands may use the network. */
  sandboxNetwork: boolean;
  /** `BRIDLE_RECOVER`: resume runs whose owner died (on by default, off by default with a queue). */
  recover: boolean;
  /** `BRIDLE_RECOVER_INTERVAL_MS`: how often to look for orphaned runs. */
  recoverIntervalMs: number;
  /** `BRIDLE_LEASE_MS`: the lease of each journaled run. */
  leaseMs: number;
  /** `BRIDLE_MAX_COST_USD`: the budget of each run in US dollars (status `budget_limit` when reached). */
  maxCostUsd?: number;
  /**
   * `BRIDLE_APPROVAL_TIMEOUT`: how long a paused call waits for a decision, in ms (each run's
   * `approvalTimeoutMs`); once passed, the call is denied by the next process that continues the run.
   */
  approvalTimeoutMs?: number;
  /**
   * `BRIDLE_REDIS_URL`: runs of `/api/chat` and `/api/batch` go through the @bridle/queue on this Redis
   * (workers run them); unset: they run in this process.
   */
  redisUrl?: string;
  /** `BRIDLE_QUEUE_PREFIX`: the queue's key prefix, shared with the workers (default `bridle`). */
  queuePrefix: string;
  /** Skills (built-in names or SKILL.md folders) that replace the default ones; the first is the default of `/api/chat`. */
  skillNames?: string[];
  maxConcurrentRuns: number;
  /**
   * `BRIDLE_MAX_RUNS_PER_TENANT`: of the run slots, how many one tenant's requests may hold at once (429
   * beyond), so a tenant's flood leaves slots to the others. Default: half of `maxConcurrentRuns` (rounded
   * up) with named keys (`BRIDLE_API_KEYS_FILE`), else all of them.
   */
  maxRunsPerTenant: number;
  runTimeoutMs: number;
  shutdownGraceMs: number;
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxStepsLimit: number;
  maxSessions: number;
  sessionIdleMs: number;
  maxPromptChars: number;
  maxSessionChars: number;
  maxMemorySessionChars: number;
  maxContextChars: number;
  maxBatchJobs: number;
  maxBatchItems: number;
  batchConcurrency: number;
  batchJobTtlMs: number;
  maxSseBufferBytes: number;
  /** `BRIDLE_MAX_EVENT_STREAMS`: `GET /api/runs/:id/events` streams open at once (503 beyond). */
  maxEventStreams: number;
  /** `BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT`: such streams open at once from one client address (429 beyond). */
  maxEventStreamsPerClient: number;
}

/** A parsed `BRIDLE_RATE_LIMIT`. */
export interface RateLimit {
  max: number;
  timeWindowMs: number;
  /** As written: `10/s`, `600/min`. */
  text: string;
}

type NumberSetting = Exclude<
  keyof ServerConfig,
  | 'host'
  | 'apiToken'
  | 'apiKeysFile'
  | 'allowedHosts'
  | 'corsOrigins'
  | 'rateLimit'
  | 'skillNames'
  | 'storeUrl'
  | 'workspace'
  | 'sandbox'
  | 'sandboxNetwork'
  | 'recover'
  | 'maxCostUsd'
  | 'approvalTimeoutMs'
  | 'redisUrl'
  | 'queuePrefix'
>;

/** Each numeric setting: its environment variable (if any), default and least value. */
const NUMBERS: Record<NumberSetting, { env?: string; fallback: number; least: number }> = {
  port: { env: 'PORT', fallback: 3000, least: 0 },
  maxConcurrentRuns: { env: 'BRIDLE_MAX_CONCURRENT_RUNS', fallback: 16, least: 1 },
  // 0: unset (the default depends on named keys; see resolveServerConfig).
  maxRunsPerTenant: { env: 'BRIDLE_MAX_RUNS_PER_TENANT', fallback: 0, least: 1 },
  runTimeoutMs: { env: 'BRIDLE_RUN_TIMEOUT_MS', fallback: 120_000, least: 1 },
  shutdownGraceMs: { env: 'BRIDLE_SHUTDOWN_GRACE_MS', fallback: 10_000, least: 0 },
  recoverIntervalMs: { env: 'BRIDLE_RECOVER_INTERVAL_MS', fallback: 10_000, least: 1 },
  leaseMs: { env: 'BRIDLE_LEASE_MS', fallback: 30_000, least: 1 },
  bodyLimit: { fallback: 1024 * 1024, least: 1 },
  headersTimeoutMs: { env: 'BRIDLE_HEADERS_TIMEOUT_MS', fallback: 10_000, least: 1 },
  requestTimeoutMs: { env: 'BRIDLE_REQUEST_TIMEOUT_MS', fallback: 30_000, least: 1 },
  keepAliveTimeoutMs: { fallback: 5_000, least: 1 },
  maxStepsLimit: { fallback: 50, least: 1 },
  maxSessions: { env: 'BRIDLE_MAX_MEMORY_SESSIONS', fallback: 1000, least: 1 },
  sessionIdleMs: { fallback: 30 * 60_000, least: 1 },
  maxPromptChars: { env: 'BRIDLE_MAX_PROMPT_CHARS', fallback: 200_000, least: 1 },
  maxSessionChars: { env: 'BRIDLE_MAX_SESSION_CHARS', fallback: 2_000_000, least: 1 },
  maxMemorySessionChars: { env: 'BRIDLE_MAX_MEMORY_SESSION_CHARS', fallback: 100_000_000, least: 1 },
  maxContextChars: { env: 'BRIDLE_MAX_CONTEXT_CHARS', fallback: 400_000, least: 1 },
  maxBatchJobs: { fallback: 32, least: 1 },
  maxBatchItems: { fallback: 1000, least: 1 },
  batchConcurrency: { fallback: 4, least: 1 },
  batchJobTtlMs: { fallback: 60 * 60_000, least: 1 },
  maxSseBufferBytes: { fallback: 1024 * 1024, least: 1 },
  maxEventStreams: { env: 'BRIDLE_MAX_EVENT_STREAMS', fallback: 256, least: 1 },
  maxEventStreamsPerClient: { env: 'BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT', fallback: 16, least: 1 },
};

const MAX_TIMER_MS = 2_147_483_647;

function readNumber(name: NumberSetting, options: ServerOptions, env: ServerOptions['env'] & object): number {
  const spec = NUMBERS[name];
  const given = (options as Record<string, unknown>)[name];
  const raw = given ?? (spec.env === undefined ? undefined : env[spec.env]?.trim() || undefined);
  if (raw === undefined) return spec.fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  const max = name === 'port' ? 65_535 : name.endsWith('Ms') ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < spec.least || value > max) {
    const source = given === undefined ? `${spec.env}=${String(raw)}` : `${name}: ${describeValue(raw)}`;
    throw new ConfigError(`Invalid server setting ${source}: expected an integer from ${spec.least} to ${max}.`);
  }
  return value;
}

/**
 * Reads the settings from `options`, then the environment, then the defaults; throws `ConfigError`
 * naming the option or variable that is not valid.
 */
export function resolveServerConfig(options: ServerOptions = {}): ServerConfig {
  const env = options.env ?? process.env;
  const numbers = Object.fromEntries(
    (Object.keys(NUMBERS) as NumberSetting[]).map((name) => [name, readNumber(name, options, env)]),
  ) as Record<NumberSetting, number>;
  if (numbers.maxMemorySessionChars < numbers.maxSessionChars) {
    throw new ConfigError(
      `BRIDLE_MAX_MEMORY_SESSION_CHARS (${numbers.maxMemorySessionChars}) must be at least BRIDLE_MAX_SESSION_CHARS (${numbers.maxSessionChars}): one full session must fit in memory.`,
    );
  }
  const host = (options.host ?? env.HOST?.trim()) || '127.0.0.1';
  const token = options.apiToken ?? env.BRIDLE_API_TOKEN;
  if (token !== undefined && token !== '' && (token.trim() !== token || token.length < 16 || /\s/.test(token))) {
    throw new ConfigError(
      'BRIDLE_API_TOKEN must be at least 16 characters without spaces (e.g. the output of `openssl rand -hex 32`).',
    );
  }
  const apiKeysFile = (options.apiKeysFile ?? env.BRIDLE_API_KEYS_FILE ?? '').trim() || undefined;
  const rateLimit = readRateLimit(options, env);
  const skillNames = readList(options.skill, env.BRIDLE_SKILL);
  const workspace = (options.workspace ?? env.BRIDLE_WORKSPACE ?? '').trim() || undefined;
  const maxCostUsd = readCost(options, env);
  const approvalTimeoutMs = readApprovalTimeout(options, env);
  const sandbox = readSwitch('BRIDLE_SANDBOX', options.sandbox, env.BRIDLE_SANDBOX);
  const sandboxNetwork = readSwitch('BRIDLE_SANDBOX_NETWORK', options.sandboxNetwork, env.BRIDLE_SANDBOX_NETWORK);
  if (sandbox && workspace === undefined) {
    throw new ConfigError(
      'BRIDLE_SANDBOX (--sandbox) needs BRIDLE_WORKSPACE=DIR (--workspace DIR): the folder sandboxed commands may change.',
    );
  }
  const storeUrl = typeof options.store === 'object' ? undefined : readStoreUrl(options.store, env.BRIDLE_STORE);
  const redisUrl = (options.redis ?? env.BRIDLE_REDIS_URL ?? '').trim() || undefined;
  if (redisUrl !== undefined && storeUrl?.toLowerCase() === 'memory:') {
    throw new ConfigError(
      'BRIDLE_REDIS_URL is set, but the store is memory: (BRIDLE_STORE unset or memory:): workers in other processes run the queued runs, so runs and sessions must be in a store they share. Set BRIDLE_STORE to the store the workers use (e.g. BRIDLE_STORE=postgres://user@host:5432/bridle).',
    );
  }
  const perTenant =
    numbers.maxRunsPerTenant === 0
      ? apiKeysFile === undefined
        ? numbers.maxConcurrentRuns
        : Math.ceil(numbers.maxConcurrentRuns / 2)
      : Math.min(numbers.maxRunsPerTenant, numbers.maxConcurrentRuns);
  return {
    ...numbers,
    maxRunsPerTenant: perTenant,
    host,
    ...(token ? { apiToken: token } : {}),
    ...(apiKeysFile === undefined ? {} : { apiKeysFile }),
    allowedHosts: readAllowedHosts(options, env),
    corsOrigins: readCorsOrigins(options, env),
    ...(rateLimit ? { rateLimit } : {}),
    ...(skillNames.length > 0 ? { skillNames } : {}),
    ...(storeUrl === undefined ? {} : { storeUrl }),
    ...(redisUrl === undefined ? {} : { redisUrl }),
    queuePrefix: (options.queuePrefix ?? env.BRIDLE_QUEUE_PREFIX ?? '').trim() || 'bridle',
    ...(workspace === undefined ? {} : { workspace }),
    sandbox,
    sandboxNetwork,
    // Queued runs are the workers' to resume (BullMQ hands a dead worker's job on).
    recover:
      options.recover === undefined && (env.BRIDLE_RECOVER ?? '').trim() === ''
        ? redisUrl === undefined
        : readSwitch('BRIDLE_RECOVER', options.recover, env.BRIDLE_RECOVER),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `BRIDLE_APPROVAL_TIMEOUT` (`30s`, `5m`, `1h`, `500ms`, or seconds) / `approvalTimeoutMs`: positive, at most ~24.8 days. */
function readApprovalTimeout(options: ServerOptions, env: ServerOptions['env'] & object): number | undefined {
  const given = options.approvalTimeoutMs;
  const raw = env.BRIDLE_APPROVAL_TIMEOUT?.trim() || undefined;
  if (given === undefined && raw === undefined) return undefined;
  const match = raw === undefined ? undefined : /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw);
  const value = given ?? (match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? 's'] as number) : Number.NaN);
  if (typeof value !== 'number' || !(value >= 1) || value > 2_147_483_647) {
    const source =
      given === undefined ? `BRIDLE_APPROVAL_TIMEOUT=${String(raw)}` : `approvalTimeoutMs: ${describeValue(given)}`;
    throw new ConfigError(
      `Invalid server setting ${source}: expected a duration such as 30s, 5m, 1h or 500ms (at most 24 days; approvalTimeoutMs in milliseconds).`,
    );
  }
  return Math.round(value);
}

/** An on/off setting: the option, else `1`/`true`/`0`/`false` (any case) in the variable; default off. */
function readSwitch(variable: string, given: boolean | undefined, raw: string | undefined): boolean {
  if (given !== undefined) {
    if (typeof given !== 'boolean')
      throw new ConfigError(`${variable} must be true or false, got ${describeValue(given)}.`);
    return given;
  }
  const text = raw?.trim().toLowerCase() ?? '';
  if (text === '' || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw new ConfigError(`${variable} must be 1, true, 0 or false, got ${JSON.stringify(raw)}.`);
}

/** `BRIDLE_MAX_COST_USD` / `maxCostUsd`: a positive number of US dollars. */
function readCost(options: ServerOptions, env: ServerOptions['env'] & object): number | undefined {
  const given = options.maxCostUsd;
  const raw = given ?? (env.BRIDLE_MAX_COST_USD?.trim() || undefined);
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    const source = given === undefined ? `BRIDLE_MAX_COST_USD=${String(raw)}` : `maxCostUsd: ${describeValue(raw)}`;
    throw new ConfigError(`Invalid server setting ${source}: expected a positive number of US dollars (e.g. 0.50).`);
  }
  return value;
}

/** The store URL: the option, else `BRIDLE_STORE`, else `memory:` (checked when the store opens). */
function readStoreUrl(given: string | undefined, fromEnv: string | undefined): string {
  const url = (given ?? fromEnv ?? '').trim();
  return url === '' ? SERVER_DEFAULT_STORE_URL : url;
}

/** An option (string or list) or else a comma list from the environment, trimmed, without empty entries. */
function readList(given: string | readonly string[] | undefined, fromEnv: string | undefined): string[] {
  const entries =
    given === undefined ? (fromEnv ?? '').split(',') : typeof given === 'string' ? given.split(',') : given;
  return entries.map((value) => value.trim()).filter(Boolean);
}

function readCorsOrigins(options: ServerOptions, env: ServerOptions['env'] & object): string[] {
  return readList(options.corsOrigins, env.BRIDLE_CORS_ORIGINS).map((entry) => {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      origin = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(
        `Invalid BRIDLE_CORS_ORIGINS entry "${entry}": write origins as scheme://host[:port], without path or wildcard (e.g. BRIDLE_CORS_ORIGINS=https://app.example.com,http://localhost:5173).`,
      );
    }
    return origin;
  });
}

function readRateLimit(options: ServerOptions, env: ServerOptions['env'] & object): RateLimit | undefined {
  const text = (options.rateLimit ?? env.BRIDLE_RATE_LIMIT ?? '').trim();
  if (text === '') return undefined;
  const match = /^(\d{1,9})\s*\/\s*(s|min)$/.exec(text);
  const max = match ? Number(match[1]) : 0;
  if (!match || max < 1) {
    throw new ConfigError(
      `Invalid BRIDLE_RATE_LIMIT "${text}": write <n>/s or <n>/min with n at least 1 (e.g. BRIDLE_RATE_LIMIT=10/s or --rate-limit 600/min).`,
    );
  }
  return { max, timeWindowMs: match[2] === 's' ? 1000 : 60_000, text };
}

/** A host name or an IP address literal (IPv6 in brackets), without scheme, port or path. */
const HOST_NAME =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

function readAllowedHosts(options: ServerOptions, env: ServerOptions['env'] & object): string[] {
  const hosts: string[] = [];
  for (const entry of readList(options.allowedHosts, env.BRIDLE_ALLOWED_HOSTS)) {
    if (!HOST_NAME.test(entry.toLowerCase())) {
      throw new ConfigError(
        `Invalid BRIDLE_ALLOWED_HOSTS entry "${entry}": write host names only, without scheme, port or wildcard (e.g. BRIDLE_ALLOWED_HOSTS=bridle.internal,10.0.0.5).`,
      );
    }
    hosts.push(entry.toLowerCase());
  }
  return hosts;
}
