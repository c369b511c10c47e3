import { Command } from 'commander';
import type { ServeFlags } from '../actions/serve-action';
import type { CommandContext } from '../command-context';
import { MCP_FLAG_HELP } from '../mcp-tools';
import { collect, dollars, duration, positiveInteger } from '../parse-options';
import { addProjectFlags } from '../project-flags';

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
      '--sandbox',
      'with --workspace: also offer the shell tool, bash in a bubblewrap sandbox over the workspace; each command waits for approval ($BRIDLE_SANDBOX)',
    )
    .option('--sandbox-network', 'let sandboxed commands use the network ($BRIDLE_SANDBOX_NETWORK; default none)')
    .option(
      '--no-recover',
      'do not resume runs whose owner died (running, lease expired); on by default without a queue ($BRIDLE_RECOVER)',
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
      context.setExitCode(await (await import('../actions/serve-action')).serve(context, flags));
    });
}
