import type { RunAgentOptions } from '@bridle/core';
import type { Model, Store, Tool } from '@bridle/protocol';
import type { Skill } from '@bridle/skills';
import type { FastifyServerOptions } from 'fastify';
import type { SessionStore } from './session-store';

/** Agent options the server passes to every run (limits, context budget, retries, ...). */
export type ServerAgentOptions = Omit<
  RunAgentOptions,
  'model' | 'tools' | 'system' | 'prompt' | 'messages' | 'signal' | 'timeoutMs' | 'stream' | 'output' | 'manifest'
>;

/**
 * Options of `createServer` / `startServer`. Every setting also has an environment variable (read from
 * `env`, default `process.env`); an option given here wins over the variable.
 */
export interface ServerOptions {
  /** The model for every run. Default: resolved from `modelId` / `BRIDLE_MODEL` and the provider keys. */
  model?: Model;
  /** A model id (`openai:gpt-4o-mini`, ...) used when `model` is not given. */
  modelId?: string;
  /** Where settings and provider keys are read from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** `HOST`, default `127.0.0.1`. A host reachable from other machines needs `apiToken`. */
  host?: string;
  /** `PORT`, default 3000; 0 picks a free port. */
  port?: number;
  /** `BRIDLE_API_TOKEN`: when set, every `/api` route needs `Authorization: Bearer <token>`. */
  apiToken?: string;
  /**
   * `BRIDLE_API_KEYS_FILE`: a JSON file of named keys, stored as SHA-256 digests, each with a tenant and
   * scopes (`chat`, `runs:read`, `approve`, `admin`), and quotas per tenant (`requestsPerMinute`,
   * `tokensPerDay`, `costUsdPerDay`, `costUsdPerRun`). Watched: edits apply within a second. See "Many
   * users" in the README.
   */
  apiKeysFile?: string;
  /**
   * `BRIDLE_ALLOWED_HOSTS` (comma list): host names accepted in the `Host` header besides loopback ones
   * (`localhost`, `127.x.x.x`, `[::1]`). Any other `Host` is a 403, so a web page whose name rebinds to
   * this machine cannot reach the API. Set it to the names clients use when the server is reachable
   * from other machines.
   */
  allowedHosts?: readonly string[];
  /**
   * `BRIDLE_CORS_ORIGINS` (comma list of `scheme://host[:port]`): browser pages on these origins may call
   * the API (CORS headers are sent for them, and their state-changing requests pass the `Origin` check).
   * Default none: CORS is off.
   */
  corsOrigins?: readonly string[];
  /**
   * `BRIDLE_RATE_LIMIT`: `<n>/s` or `<n>/min` requests per API token (per client address when the server
   * has no token), shared by `/api`, `/v1` and `/openapi.json`; beyond, 429 with `Retry-After`. `/health`
   * and `/ready` are exempt. Default: no limit.
   */
  rateLimit?: string;
  /**
   * `BRIDLE_SKILL` (comma list): the skills offered, each a built-in name (`assistant`, `analyst`) or a
   * folder with a SKILL.md; they replace the default ones (unless `skills` is given) and the first is the
   * skill of `/api/chat` requests that name none. `/v1/models` lists them as `bridle:<name>`.
   */
  skill?: string | readonly string[];
  /**
   * `BRIDLE_WORKSPACE` (`--workspace DIR`): offers the `coding` skill over this folder (resolved from the
   * working directory; the root of the file system and the home folder are refused). Its writes, edits and
   * commands require approval, so they pause `/api/chat` runs until decided. Without `skill` it is the
   * default skill, as in the CLI.
   */
  workspace?: string;
  /**
   * `BRIDLE_SANDBOX=1` (`--sandbox`): with a workspace, the `coding` skill also offers the `shell` tool
   * (bash in a bubblewrap sandbox over the workspace; each command waits for approval). Off by default;
   * without bubblewrap `listen()` rejects naming it.
   */
  sandbox?: boolean;
  /** `BRIDLE_SANDBOX_NETWORK=1` (`--sandbox-network`): sandboxed commands may use the network. Default off. */
  sandboxNetwork?: boolean;
  /**
   * `BRIDLE_RECOVER` (`--no-recover` turns it off): resume runs whose owner died (running, lease expired), at
   * start and every `recoverIntervalMs`; with many servers on one database each orphan is resumed by exactly
   * one. Default on, except with `BRIDLE_REDIS_URL` (the queue's workers resume their runs).
   */
  recover?: boolean;
  /** `BRIDLE_RECOVER_INTERVAL_MS`: how often to look for orphaned runs, in ms. Default 10000. */
  recoverIntervalMs?: number;
  /**
   * `BRIDLE_LEASE_MS`: the lease of each journaled run this server runs, in ms (renewed every third of it;
   * a run whose server died is an orphan once it passes). Default 30000; `agent.ownership.leaseMs` wins.
   */
  leaseMs?: number;
  /** `BRIDLE_MAX_COST_USD` (`--max-cost`): each run's budget in US dollars (status `budget_limit`). */
  maxCostUsd?: number;
  /**
   * `BRIDLE_APPROVAL_TIMEOUT` (`30s`, `5m`, `1h`): how long a paused tool call waits for a decision, in ms.
   * Journaled with the pause; once passed the call is denied (`decidedBy: 'timeout'`) when this server (or
   * the next one to start on the same store) finds it. `agent.approvalTimeoutMs` wins. Default: none.
   */
  approvalTimeoutMs?: number;
  /** `BRIDLE_MAX_CONCURRENT_RUNS`, default 16: runs (chat and batch items) at once; chat gets 503 beyond. */
  maxConcurrentRuns?: number;
  /**
   * `BRIDLE_MAX_RUNS_PER_TENANT`: run slots one tenant's chat and `/v1` requests may hold at once (429
   * `quota_exceeded` with `Retry-After: 1` beyond); default half of `maxConcurrentRuns` with named keys, else all.
   */
  maxRunsPerTenant?: number;
  /** `BRIDLE_RUN_TIMEOUT_MS`, default 120000: the deadline of each run. */
  runTimeoutMs?: number;
  /** `BRIDLE_SHUTDOWN_GRACE_MS`, default 10000: how long running work may finish after SIGTERM. */
  shutdownGraceMs?: number;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** `BRIDLE_HEADERS_TIMEOUT_MS`, default 10000: time a client has to send the request headers. */
  headersTimeoutMs?: number;
  /** `BRIDLE_REQUEST_TIMEOUT_MS`, default 30000: time a client has to send the whole request. */
  requestTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this; default 5000 ms. */
  keepAliveTimeoutMs?: number;
  /** Largest `maxSteps` a request may ask for; default 50. */
  maxStepsLimit?: number;
  /** `BRIDLE_MAX_MEMORY_SESSIONS`, default 1000: sessions kept in the default in-memory store (least recently used evicted beyond). */
  maxSessions?: number;
  /** `BRIDLE_MAX_PROMPT_CHARS`, default 200000: longest prompt (chat, batch item, `/v1` message); 413 beyond. */
  maxPromptChars?: number;
  /** `BRIDLE_MAX_SESSION_CHARS`, default 2000000: a turn that would take a session's transcript (as JSON) past it is a 413. */
  maxSessionChars?: number;
  /**
   * `BRIDLE_MAX_MEMORY_SESSION_CHARS`, default 100000000: characters held by all sessions of the default
   * in-memory store together (least recently used evicted beyond); at least `maxSessionChars`.
   */
  maxMemorySessionChars?: number;
  /**
   * `BRIDLE_MAX_CONTEXT_CHARS`, default 400000: the context budget of every run (`context.maxContextChars`:
   * the first user message and the newest messages that fit are sent). `agent.context` wins when it sets one.
   */
  maxContextChars?: number;
  /** A session unused for this long is forgotten; default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * `BRIDLE_STORE`: where runs are journaled and sessions kept, as a URL (`memory:`, `sqlite:<path>` or a
   * bare path, `postgres://...`) or an open `Store` (the server then never closes it). Default `memory:`:
   * sessions stay in the bounded in-memory store (`maxSessions`, `sessionIdleMs`) and nothing survives a
   * restart; `sqlite:.bridle/bridle.db` is the CLI's file (then `bridle runs` lists the server's runs too).
   */
  store?: string | Store;
  /**
   * `BRIDLE_REDIS_URL`: `/api/chat` and `/api/batch` runs are enqueued on this Redis (@bridle/queue) and run
   * by `bridle worker` processes; their events stream back from whichever worker runs them. Needs a store
   * the workers share (`store`: Postgres); `memory:` is refused. Redis unreachable at start: `listen()`
   * rejects with a `ConfigError`.
   */
  redis?: string;
  /** `BRIDLE_QUEUE_PREFIX`: the queue's key prefix, the workers' `--queue-prefix` (default `bridle`). */
  queuePrefix?: string;
  /** Where conversations live; default the `store` (in memory, bounded by `maxSessions` / `sessionIdleMs`, when it is `memory:`). */
  sessionStore?: SessionStore;
  /** Batch jobs kept (running or finished); default 32. */
  maxBatchJobs?: number;
  /** Items per batch job; default 1000. */
  maxBatchItems?: number;
  /** Items of one batch job running at once; default 4. */
  batchConcurrency?: number;
  /** A finished batch job is forgotten after this; default 1 hour. */
  batchJobTtlMs?: number;
  /** Bytes of SSE output a slow client may leave unread before its run is aborted; default 1 MiB. */
  maxSseBufferBytes?: number;
  /** `BRIDLE_MAX_EVENT_STREAMS`: `GET /api/runs/:id/events` streams open at once; beyond, 503 `streams_full`. Default 256. */
  maxEventStreams?: number;
  /**
   * `BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT`: such streams open at once from one client address; beyond, 429
   * `too_many_streams`. Default 16.
   */
  maxEventStreamsPerClient?: number;
  /** The system prompt of every run. */
  system?: string;
  /** Tools of every run. */
  tools?: Tool[];
  /** Skills a request may name in `skill`; default the built-in `assistant` and `analyst`. */
  skills?: readonly Skill[];
  /** More `runAgent` options for every run (`maxSteps`, `maxToolCalls`, `context`, `retry`, ...). */
  agent?: ServerAgentOptions;
  /**
   * OpenTelemetry from the standard variables of `env`: with `OTEL_EXPORTER_OTLP_ENDPOINT` (or
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) every run's events become spans sent over OTLP/HTTP, under
   * `service.name` `OTEL_SERVICE_NAME` (default `bridle-server`); content only with
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. `false` turns it off (e.g. when the embedding
   * app traces runs itself). Default true.
   */
  telemetry?: boolean;
  /** Fastify logger (pino) options, or false; default `{ level: LOG_LEVEL ?? 'info' }`. */
  logger?: FastifyServerOptions['logger'];
}
