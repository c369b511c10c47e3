import { resolve } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import type { CommandContext } from '../command-context';
import { loadDecisionKey } from '../decision-key-file';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import type { ProjectFlags } from '../project-flags';

/** Flags of `bridle serve`. */
export interface ServeFlags extends ProjectFlags, McpFlags {
  host?: string;
  port?: number;
  maxConcurrentRuns?: number;
  runTimeout?: number;
  shutdownGrace?: number;
  model?: string;
  system?: string;
  skill?: string[];
  allowedHosts?: string;
  corsOrigins?: string;
  rateLimit?: string;
  store?: string;
  workspace?: string;
  sandbox?: boolean;
  sandboxNetwork?: boolean;
  maxCost?: number;
  recover?: boolean;
}

const list = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** `bridle serve`'s work: starts the server and resolves with the exit code once it stopped. */
export async function serve(context: CommandContext, flags: ServeFlags): Promise<number> {
  const { io } = context;
  const project = await loadCliProject(context, flags);
  // Precedence: a flag > its variable (read by the server) > the config files.
  const fromConfig = <T>(variable: string, value: T | undefined) => (io.env[variable]?.trim() ? undefined : value);
  const modelId = flags.model ?? fromConfig('BRIDLE_MODEL', project.config.model);
  const store = flags.store ?? fromConfig('BRIDLE_STORE', project.config.store);
  const workspaceDir = flags.workspace ?? fromConfig('BRIDLE_WORKSPACE', project.config.workspace);
  const workspace = workspaceDir === undefined ? undefined : resolve(io.cwd, workspaceDir);
  const maxCostUsd = flags.maxCost ?? fromConfig('BRIDLE_MAX_COST_USD', project.config.maxCostUsd);
  const configSandbox = fromConfig('BRIDLE_SANDBOX', project.config.sandbox);
  const sandbox = flags.sandbox ?? (configSandbox === undefined ? undefined : configSandbox !== false);
  const sandboxNetwork =
    flags.sandboxNetwork ??
    fromConfig(
      'BRIDLE_SANDBOX_NETWORK',
      typeof project.config.sandbox === 'object' ? project.config.sandbox.network : undefined,
    );
  // Loaded on demand: the server (Fastify) is only needed by this command.
  const { startServer } = await import('@bridle/server');
  const mcp = await openMcpTools(flags.mcp, project, io, context.errorStyle);
  const server = await startServer({
    ...(mcp.tools.length === 0 ? {} : { tools: mcp.tools }),
    env: io.env,
    // Signals are handled here, so that this command returns only once the graceful shutdown is over.
    handleSignals: false,
    ...(flags.host === undefined ? {} : { host: flags.host }),
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns: flags.maxConcurrentRuns }),
    ...(flags.runTimeout === undefined ? {} : { runTimeoutMs: flags.runTimeout }),
    ...(flags.shutdownGrace === undefined ? {} : { shutdownGraceMs: flags.shutdownGrace }),
    ...(modelId === undefined ? {} : { modelId }),
    ...(flags.system === undefined ? {} : { system: flags.system }),
    ...(flags.skill === undefined ? {} : { skill: flags.skill }),
    ...(flags.allowedHosts === undefined ? {} : { allowedHosts: list(flags.allowedHosts) }),
    ...(flags.corsOrigins === undefined ? {} : { corsOrigins: list(flags.corsOrigins) }),
    ...(flags.rateLimit === undefined ? {} : { rateLimit: flags.rateLimit }),
    ...(store === undefined ? {} : { store }),
    ...(workspace === undefined ? {} : { workspace }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(sandboxNetwork === undefined ? {} : { sandboxNetwork }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(flags.recover === false ? { recover: false } : {}),
    // Decisions its runs keep in the store verify after a restart (and in this user's workers).
    agent: { decisionKey: await loadDecisionKey(io.env) },
  }).catch(async (error: NodeJS.ErrnoException & { port?: number; address?: string }) => {
    await mcp.close();
    throw listenError(error);
  });
  io.stderr.write(`bridle serve: listening on ${server.url} (Ctrl-C or SIGTERM stops it gracefully)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopInterrupt();
      stopTerminate();
      io.stderr.write('bridle serve: shutting down (running work may finish first)\n');
      server
        .shutdown()
        .then(() => mcp.close())
        .then(resolve, resolve);
    };
    const stopInterrupt = io.onInterrupt(stop);
    const stopTerminate = io.onTerminate?.(stop) ?? (() => {});
  });
  return ExitCode.completed;
}

/** A port that cannot be taken is the user's setting to change: exit 2 naming the port and how. */
function listenError(error: NodeJS.ErrnoException & { port?: number; address?: string }): unknown {
  if (error?.code !== 'EADDRINUSE' && error?.code !== 'EACCES') return error;
  const where = `port ${error.port ?? '?'}${error.address ? ` on ${error.address}` : ''}`;
  const why =
    error.code === 'EADDRINUSE'
      ? `${where} is already in use (another bridle serve, or another program, listens there)`
      : `${where} needs privileges this user does not have (ports below 1024)`;
  return new ConfigError(
    `Cannot listen: ${why}. Pick another port with --port N (or PORT=N in your shell; --port 0 takes any free one), or stop the program that holds it.`,
    { cause: error },
  );
}
