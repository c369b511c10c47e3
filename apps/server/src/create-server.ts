import { randomUUID } from 'node:crypto';
import { MemoryQuotaLedger } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import { resolveModel } from '@bridle/models';
import type { Telemetry } from '@bridle/otel';
import { ConfigError, type Store } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import { openBubblewrapSandbox } from '@bridle/sandbox';
import { analystSkill, assistantSkill } from '@bridle/skills';
import { openQuotaLedger, openStore, type RunRecovery } from '@bridle/store';
import Fastify, { type FastifyInstance } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import { BatchJobs } from './batch-jobs';
import { installErrorHandling } from './error-handler';
import { EventStreams } from './event-streams';
import { sweepExpiredApprovals } from './expired-approvals';
import { guardModel, type ModelErrorLogger } from './guard-model';
import { hostOriginGuard } from './host-origin-guard';
import { LiveRuns } from './live-runs';
import { isLoopbackHost } from './loopback';
import { openWorkspace } from './open-workspace';
import { openQueuedRuns } from './queued-runs';
import { recoverOrphans } from './recover-orphans';
import { registerPlugins } from './register-plugins';
import { registerRoutes } from './register-routes';
import { resolveSkills } from './resolve-skills';
import { documentResponses } from './response-schemas';
import { RunLimiter } from './run-limiter';
import { checkAgentOptions } from './run-options';
import { buildRunProfiles } from './run-profiles';
import { formatSchemaErrors, requestSchemas } from './schemas';
import { resolveServerConfig, type ServerConfig } from './server-config';
import type { ModelSource, ServerContext } from './server-context';
import { defaultLogger } from './server-logger';
import type { ServerOptions } from './server-options';
import { openServerTelemetry } from './server-telemetry';
import { MemorySessionStore } from './session-store';
import { StoreSessionStore } from './store-session-store';
import { TenantAuth } from './tenant-auth';

/** A configured server: the Fastify instance plus its lifecycle. */
export interface BridleServer {
  /** The Fastify instance (routes registered; use `app.inject` to test without a socket). */
  readonly app: FastifyInstance;
  readonly config: ServerConfig;
  /** Listens on `config.host` / `config.port`; resolves with the base URL (`http://127.0.0.1:3000`). */
  listen(): Promise<string>;
  /**
   * Graceful stop: refuses new requests (503) and closes the listener at once, lets running runs and
   * batch jobs finish for up to `shutdownGraceMs`, then aborts them (their clients get their
   * `aborted` answers) and resolves when every connection has ended. Idempotent.
   */
  shutdown(): Promise<void>;
}

function modelSource(options: ServerOptions, log: ModelErrorLogger): ModelSource {
  if (options.model) return { model: guardModel(options.model, log) };
  try {
    return { model: guardModel(resolveModel(options.modelId, { env: options.env ?? process.env }), log) };
  } catch (error) {
    if (ConfigError.isInstance(error)) return { error: redactCredentials(error.message) };
    throw error;
  }
}

/** The model id queued jobs name: the server's model's, else `modelId` / `BRIDLE_MODEL` (workers hold the keys). */
function queuedModel(options: ServerOptions, source: ModelSource): string | undefined {
  if (options.model) return options.model.id;
  const given = (options.modelId ?? (options.env ?? process.env).BRIDLE_MODEL)?.trim();
  if (given) return given;
  return 'model' in source ? source.model.id : undefined;
}

/** True for the store URL of a store in this process only (`memory:`, or none given: the default). */
function isMemoryUrl(url: string | undefined): boolean {
  return url === undefined || url.trim().toLowerCase() === 'memory:';
}

/** `agent.onEvent` as a list. */
function observersOf(onEvent: EventObserver | readonly EventObserver[] | undefined): EventObserver[] {
  return onEvent === undefined ? [] : typeof onEvent === 'function' ? [onEvent] : [...onEvent];
}

/**
 * Waits for `closed` (the listener closed and every connection ended) once all work is over. Keep-alive
 * sockets that fall idle after their last response would otherwise linger for the keep-alive timeout:
 * they are closed as they go idle, and whatever is left after a short drain is cut.
 */
async function drainConnections(app: FastifyInstance, closed: Promise<unknown>): Promise<void> {
  let done = false;
  void closed.finally(() => {
    done = true;
  });
  for (let waited = 0; !done && waited < 1000; waited += 25) {
    app.server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (!done) app.server.closeAllConnections();
  await closed;
}

/**
 * Builds the server from `options` and the environment (see {@link ServerOptions}). Throws
 * `ConfigError` for an invalid setting, and for a host reachable from other machines without an API
 * token. A missing model key does not throw: the server starts, `/ready` says 503 and why.
 */
export function createServer(options: ServerOptions = {}): BridleServer {
  const config = resolveServerConfig(options);
  checkAgentOptions(options.agent);
  if (!config.apiToken && !config.apiKeysFile && !isLoopbackHost(config.host)) {
    throw new ConfigError(
      `Refusing to listen on ${config.host} without an API token: anyone who can reach it could run agents. ` +
        'Set BRIDLE_API_TOKEN (e.g. `openssl rand -hex 32`) or BRIDLE_API_KEYS_FILE, or bind 127.0.0.1.',
    );
  }
  const env = options.env ?? process.env;
  let log: (() => FastifyInstance['log']) | undefined;
  // Read now: a bad keys file throws here, naming the entry and the fix.
  const auth = new TenantAuth({
    ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
    ...(config.apiKeysFile === undefined ? {} : { keysFile: config.apiKeysFile }),
    log: (error) =>
      log?.().error({ err: error }, 'BRIDLE_API_KEYS_FILE changed but is not valid: the previous keys stay in force'),
  });
  let telemetry: Telemetry | undefined;
  const app = Fastify({
    logger: options.logger ?? defaultLogger(env),
    genReqId: () => randomUUID(),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // headersTimeout must not exceed requestTimeout; the checking interval sets how promptly both apply.
    http: {
      headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
    },
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    schemaErrorFormatter: (errors, dataVar) => formatSchemaErrors(errors as never, dataVar),
  });
  log = () => app.log;
  app.decorateRequest('bridleCaller', null);
  const base = {
    ...(options.system === undefined ? {} : { system: options.system }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
  const context: ServerContext = {
    config,
    limiter: new RunLimiter(config.maxConcurrentRuns),
    // Both are set by the plugin below once the store has opened, before any route runs.
    sessions: undefined as never,
    // Replaced at startup by the ledger every process shares: Redis (BRIDLE_REDIS_URL), else the store's database.
    ledger: new MemoryQuotaLedger(),
    store: undefined as never,
    live: new LiveRuns(),
    eventStreams: new EventStreams({
      maxStreams: config.maxEventStreams,
      maxStreamsPerClient: config.maxEventStreamsPerClient,
    }),
    resumingRuns: new Set(),
    busySessions: new Set(),
    jobs: new BatchJobs({ maxJobs: config.maxBatchJobs, ttlMs: config.batchJobTtlMs }),
    // As in the CLI, a request that names no skill gets `assistant` (the first skill offered); with
    // `options.skills` an embedder chooses, and a request without `skill` gets the bare system and tools.
    profiles: options.skills
      ? buildRunProfiles({ ...base, skills: options.skills })
      : buildRunProfiles({ ...base, skills: [assistantSkill(), analystSkill()], defaultSkill: 'assistant' }),
    modelSource: modelSource(options, (error, modelId) =>
      app.log.error({ err: error, modelId: redactCredentials(modelId) }, 'the model failed with an unexpected error'),
    ),
    // Every run gets a context budget, so a long session never sends an unbounded request.
    agent: {
      ...options.agent,
      context: { maxContextChars: config.maxContextChars, ...options.agent?.context },
      ownership: { leaseMs: config.leaseMs, ...options.agent?.ownership },
      ...(config.maxCostUsd === undefined
        ? {}
        : { budget: { maxCostUsd: config.maxCostUsd, ...options.agent?.budget } }),
      ...(config.approvalTimeoutMs === undefined
        ? {}
        : { approvalTimeoutMs: options.agent?.approvalTimeoutMs ?? config.approvalTimeoutMs }),
    },
    state: { shuttingDown: false },
    auth,
    isAuthorized: (request) => {
      try {
        auth.authenticate(request);
        return true;
      } catch {
        return false;
      }
    },
  };
  const schemas = requestSchemas(config);

  // The store and the telemetry open before the routes (a bad BRIDLE_STORE or OTEL_* setting makes listen()
  // reject with the fix).
  let ownStore: Store | undefined;
  app.register(async () => {
    telemetry = options.telemetry === false ? undefined : await openServerTelemetry(env, () => app.log);
    // Every run's events also become spans when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    if (telemetry) context.agent.onEvent = [...observersOf(options.agent?.onEvent), telemetry.onEvent];
    const store =
      typeof options.store === 'object' ? options.store : await openStore(config.storeUrl, { cwd: process.cwd() });
    if (typeof options.store !== 'object') ownStore = store;
    context.store = store;
    context.sessions =
      options.sessionStore ??
      (config.storeUrl?.trim() === 'memory:'
        ? new MemorySessionStore({
            maxSessions: config.maxSessions,
            idleMs: config.sessionIdleMs,
            maxChars: config.maxMemorySessionChars,
          })
        : new StoreSessionStore(store));
    if (config.redisUrl !== undefined)
      context.queue = await openQueuedRuns(config, queuedModel(options, context.modelSource));
    // Tenants' quotas hold across every server of the deployment: they count in the queue's Redis.
    if (config.redisUrl !== undefined && config.apiKeysFile !== undefined) {
      const { RedisQuotaLedger } = await import('@bridle/queue');
      context.ledger = await RedisQuotaLedger.open(config.redisUrl, config.queuePrefix);
    } else if (config.apiKeysFile !== undefined && ownStore !== undefined && !isMemoryUrl(config.storeUrl)) {
      // Without Redis, servers sharing a SQLite file or a Postgres database count in it (its clock's windows).
      context.ledger = await openQuotaLedger(config.storeUrl as string, { cwd: process.cwd() });
    }
  });
  // Runs whose owner died are resumed once the server listens (so the skills below are loaded first).
  let recovery: RunRecovery | undefined;
  app.addHook('onReady', async () => {
    if (config.recover) recovery = recoverOrphans(context, app.log);
  });
  installErrorHandling(app);
  // Approval deadlines that passed while no server was up are applied at start, then as they pass.
  let stopSweeping: (() => Promise<void>) | undefined;
  app.addHook('onReady', async () => {
    stopSweeping = sweepExpiredApprovals(context, app.log);
  });
  // A plain app.close() (without shutdown()) still sends the spans so far.
  app.addHook('onClose', async () => {
    recovery?.stop();
    await stopSweeping?.();
    await telemetry?.forceFlush();
  });
  documentResponses(app);
  registerPlugins(app, config, packageJson.version);
  if ((config.skillNames || config.workspace !== undefined) && !options.skills) {
    // As in the CLI, a workspace alone makes `coding` the default skill (assistant and analyst stay offered).
    const names = config.skillNames ?? (config.workspace === undefined ? [] : ['coding', 'assistant', 'analyst']);
    const folder = config.workspace;
    // Skill folders and the workspace are opened once at startup (before the routes): a bad one makes listen() reject.
    app.register(async () => {
      const cwd = process.cwd();
      const workspace = folder === undefined ? undefined : await openWorkspace(folder, cwd);
      const sandbox =
        config.sandbox && workspace !== undefined
          ? await openBubblewrapSandbox({ root: workspace.root, network: config.sandboxNetwork })
          : undefined;
      const skills = await resolveSkills(names, cwd, workspace, sandbox);
      context.profiles = buildRunProfiles({ ...base, skills, defaultSkill: (skills[0] as { name: string }).name });
    });
  }
  // Only JSON bodies: Fastify's default text/plain parser would let a cross-site form or `fetch` without a
  // preflight reach the routes; such a request gets 415 with the content type to use instead.
  app.removeContentTypeParser('text/plain');
  // Callback-style hooks: they run on every request, and async ones cost a promise each. One hook does both
  // (the request id first, so a refused request's answer carries it too): each hook is a step per request.
  const checkHostAndOrigin = hostOriginGuard({ allowedHosts: config.allowedHosts, allowedOrigins: config.corsOrigins });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    checkHostAndOrigin(request, reply, done);
  });
  // While shutting down, a finished response also ends its connection, so clients reconnect elsewhere.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (context.state.shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });
  registerRoutes(app, context, schemas);
  if ('error' in context.modelSource && config.redisUrl === undefined)
    app.log.warn(`not ready: ${context.modelSource.error}`);
  if (!isLoopbackHost(config.host) && config.allowedHosts.length === 0) {
    app.log.warn(
      `listening on ${config.host}, but only loopback names are accepted in Host: set BRIDLE_ALLOWED_HOSTS to the names clients use`,
    );
  }

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      context.state.shuttingDown = true;
      recovery?.stop();
      const closed = app.close();
      const work = Promise.all([context.limiter.idle(), context.jobs.idle()]);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace_over'>((resolve) => {
        timer = setTimeout(() => resolve('grace_over'), config.shutdownGraceMs);
      });
      if ((await Promise.race([work, graceOver])) === 'grace_over') {
        const reason = new Error('the server is shutting down');
        app.log.warn({ activeRuns: context.limiter.active }, 'shutdown grace period over: aborting running work');
        context.jobs.abortAll(reason);
        context.limiter.abortAll(reason);
      }
      clearTimeout(timer);
      await drainConnections(app, closed);
      await context.sessions?.close?.();
      await context.queue?.queue.close();
      await ownStore?.close();
      auth.close();
      await context.ledger.close();
      await telemetry?.shutdown();
    })();
    return stopping;
  };

  return {
    app,
    config,
    async listen() {
      return app.listen({ host: config.host, port: config.port });
    },
    shutdown,
  };
}
