import { resolve } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { MCP_FLAG_HELP, type McpFlags, openMcpTools } from '../mcp-tools';
import { collect, dollars, duration, positiveInteger } from '../parse-options';
import { addProjectFlags, type ProjectFlags } from '../project-flags';

interface ServeFlags extends ProjectFlags, McpFlags {
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
  maxCost?: number;
}

const list = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

function port(value: string): number {
  return value === '0' ? 0 : positiveInteger(value);
}

/** `bridle serve`: starts the `@bridle/server` HTTP API (flags win over the environment variables). */
export function serveCommand(context: CommandContext): Command {
  const command = new Command('serve');
  return addProjectFlags(command)
    .description('Start the Bridle HTTP server (/api with SSE, sessions, batch jobs; OpenAI-compatible /v1)')
    .option('--host <host>', 'interface to bind ($HOST, default 127.0.0.1; other hosts need BRIDLE_API_TOKEN)')
    .option('--port <port>', 'port ($PORT, default 3000; 0 picks a free one)', port)
    .option(
      '--max-concurrent-runs <n>',
      'runs at once; beyond, 503 ($BRIDLE_MAX_CONCURRENT_RUNS, default 16)',
      positiveInteger,
    )
    .option('--run-timeout <duration>', 'deadline of each run ($BRIDLE_RUN_TIMEOUT_MS, default 120s)', duration)
    .option(
      '--shutdown-grace <duration>',
      'how long running work may finish on SIGTERM ($BRIDLE_SHUTDOWN_GRACE_MS, default 10s)',
      duration,
    )
    .option('-m, --model <id>', 'model id (default: $BRIDLE_MODEL, else from the API key present)')
    .option('--system <text>', 'system prompt of every run')
    .option(
      '-s, --skill <name-or-dir>',
      'a skill to offer, repeatable: assistant, analyst or a SKILL.md folder; the first is the default ($BRIDLE_SKILL)',
      collect,
    )
    .option('--mcp <file>', MCP_FLAG_HELP)
    .option('--allowed-hosts <names>', 'host names accepted in Host besides loopback ones ($BRIDLE_ALLOWED_HOSTS)')
    .option(
      '--cors-origins <origins>',
      'origins allowed by CORS, comma list (default none: CORS off; $BRIDLE_CORS_ORIGINS)',
    )
    .option('--rate-limit <n/s|n/min>', 'requests per API token, else per address ($BRIDLE_RATE_LIMIT; default none)')
    .option(
      '--store <url>',
      'where runs are journaled and sessions kept: memory:, sqlite:<file>, postgres://... ($BRIDLE_STORE, default memory:)',
    )
    .option(
      '-w, --workspace <dir>',
      'offer the coding skill over this folder; its writes, edits and commands wait for approval ($BRIDLE_WORKSPACE)',
    )
    .option(
      '--max-cost <usd>',
      'budget per run in US dollars: status budget_limit when reached ($BRIDLE_MAX_COST_USD)',
      dollars,
    )
    .addHelpText(
      'after',
      "\nThe API token is read from BRIDLE_API_TOKEN only (never a flag, so it stays out of process lists), from your\nshell or an --env-file: a folder's .env gives API keys only, never HOST, PORT or BRIDLE_* settings.",
    )
    .action(async (flags: ServeFlags) => {
      context.setExitCode(await serve(context, flags));
    });
}

async function serve(context: CommandContext, flags: ServeFlags): Promise<number> {
  const { io } = context;
  const project = await loadCliProject(context, flags);
  // Precedence: a flag > its variable (read by the server) > the config files.
  const fromConfig = <T>(variable: string, value: T | undefined) => (io.env[variable]?.trim() ? undefined : value);
  const modelId = flags.model ?? fromConfig('BRIDLE_MODEL', project.config.model);
  const store = flags.store ?? fromConfig('BRIDLE_STORE', project.config.store);
  const workspaceDir = flags.workspace ?? fromConfig('BRIDLE_WORKSPACE', project.config.workspace);
  const workspace = workspaceDir === undefined ? undefined : resolve(io.cwd, workspaceDir);
  const maxCostUsd = flags.maxCost ?? fromConfig('BRIDLE_MAX_COST_USD', project.config.maxCostUsd);
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
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
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
