import { ConfigError } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { RunJob, RunWorker } from '@bridle/queue';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { loadDecisionKey } from '../decision-key-file';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { workerAgents } from './worker-agents';

/** Flags of `bridle worker`. */
export interface WorkerFlags extends AgentFlags, McpFlags {
  redis?: string;
  store?: string;
  concurrency: number;
  rateLimit?: string;
  queuePrefix?: string;
  drainTimeout: number;
}

/** The Redis URL, store URL and prefix from the flags, else the environment; `ConfigError` when missing. */
export function queueSettings(
  flags: { redis?: string; store?: string; queuePrefix?: string },
  env: Record<string, string | undefined>,
  config: { store?: string },
  redisFlag = '--redis',
) {
  const redis = flags.redis ?? env.BRIDLE_REDIS_URL;
  if (!redis)
    throw new ConfigError(`No Redis for the queue: give ${redisFlag} redis://host:6379 or set BRIDLE_REDIS_URL.`);
  const store = flags.store ?? (env.BRIDLE_STORE?.trim() || undefined) ?? config.store;
  if (!store)
    throw new ConfigError(
      'No store: workers and producers must share one. Give --store postgres://user@host:5432/db or set BRIDLE_STORE.',
    );
  if (store.trim().toLowerCase() === 'memory:')
    throw new ConfigError(
      `--store memory: cannot be shared between processes: give the store every worker uses, e.g. --store postgres://user@host:5432/db (BRIDLE_STORE).`,
    );
  return { redis, store, prefix: flags.queuePrefix ?? env.BRIDLE_QUEUE_PREFIX ?? 'bridle' };
}

/** The `worker` command's work: runs jobs until SIGTERM or Ctrl-C, then drains; resolves with the exit code. */
export async function workerAction(context: CommandContext, flags: WorkerFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const settings = queueSettings(flags, io.env, project.config);
  const { parseRateLimit, startRunWorker } = await import('@bridle/queue');
  const rateLimit = flags.rateLimit === undefined ? undefined : parseRateLimit(flags.rateLimit);
  const setup = await buildAgentSetup(flags, io, project.config);
  const { openStore, redactUrl } = await import('@bridle/store');
  const store = await openStore(settings.store, { cwd: io.cwd });
  const log = (line: string) => io.stderr.write(`${new Date().toISOString()} bridle worker: ${line}\n`);
  let mcp: Awaited<ReturnType<typeof openMcpTools>> | undefined;
  let worker: RunWorker | undefined;
  try {
    mcp = await openMcpTools(flags.mcp, project, io, style);
    const agentFor = workerAgents(setup, flags, io, project.config, mcp.tools);
    // Workers of one user on one machine share the decision key: approvals a resumed segment journaled hold
    // when another worker takes the run over.
    const decisionKey = await loadDecisionKey(io.env);
    const agent = async (job: RunJob) => ({ ...(await agentFor(job)), decisionKey, onEvent: telemetry.observers });
    let stopping: (() => void) | undefined;
    const stopped = new Promise<void>((resolve) => {
      stopping = resolve;
    });
    const stopInterrupt = io.onInterrupt(() => stopping?.());
    const stopTerminate = io.onTerminate?.(() => stopping?.()) ?? (() => {});
    worker = await startRunWorker({
      redis: settings.redis,
      store,
      prefix: settings.prefix,
      concurrency: flags.concurrency,
      drainTimeoutMs: flags.drainTimeout,
      ...(rateLimit === undefined ? {} : { rateLimit }),
      agent,
      onLog: ({ message }) => log(message),
    });
    log(
      `store ${redactUrl(settings.store)} · model ${redactCredentials(setup.modelId)} · skills ${setup.skills.map((skill) => skill.name).join(', ')}`,
    );
    await stopped;
    stopInterrupt();
    stopTerminate();
    log(`stopping: draining ${worker.running} running job(s) (up to ${flags.drainTimeout} ms)`);
    await worker.close();
    log('stopped');
    return ExitCode.completed;
  } finally {
    await worker?.close();
    await mcp?.close();
    await store.close();
    await telemetry.close();
  }
}
