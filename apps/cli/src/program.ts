// Each command loads its action with an inline import() when it runs: measured on the built CLI, importing all
// twelve action modules up front costs ~0.95 s (MCP SDK, store drivers, queue, server), more than `bridle --help`
// takes in all (~0.7 s). Startup is the reason; the few other inline imports (MCP, OTel, queue, server) load a
// heavy package only when its feature is used.
import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { CommandContext } from './command-context';
import { attachCommand } from './commands/attach';
import { batchCommand } from './commands/batch';
import { chatCommand } from './commands/chat';
import { demoCommand } from './commands/demo';
import { evalCommand } from './commands/eval';
import { initCommand } from './commands/init';
import { mcpServeCommand } from './commands/mcp-serve';
import { permissionsCommand } from './commands/permissions';
import { replayCommand } from './commands/replay';
import { resumeCommand } from './commands/resume';
import { runCommand } from './commands/run';
import { runsCommand } from './commands/runs';
import { serveCommand } from './commands/serve';
import { cancelCommand, steerCommand } from './commands/steer';
import { skillsCommand, toolsCommand } from './commands/tools';
import { trustCommand } from './commands/trust';
import { workerCommand } from './commands/worker';

/**
 * Builds the `bridle` commander program. It never exits the process: commander errors are thrown
 * (`exitOverride`) and each command reports its exit code through `context.setExitCode`.
 */
export function createProgram(context: CommandContext): Command {
  const { io, errorStyle } = context;
  const program = new Command('bridle')
    .description('Bridle: run agents from the terminal. Start with `bridle demo` (offline, no key needed).')
    .version(packageJson.version, '-v, --version')
    .addHelpText(
      'after',
      "\nEnvironment: BRIDLE_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,\nOPENAI_COMPATIBLE_API_KEY, BRIDLE_STORE, XDG_DATA_HOME (runs and sessions), XDG_CONFIG_HOME (settings, trust,\nthe decision key), NO_COLOR. A folder's .env gives API keys only (--env-file FILE loads all of a file);\nits bridle.config.json and .mcp.json apply once you trust the folder (bridle trust, or --trust-project).",
    );
  program.addCommand(runCommand(context));
  program.addCommand(chatCommand(context));
  program.addCommand(batchCommand(context));
  program.addCommand(evalCommand(context));
  program.addCommand(runsCommand(context));
  program.addCommand(resumeCommand(context));
  program.addCommand(steerCommand(context));
  program.addCommand(cancelCommand(context));
  program.addCommand(attachCommand(context));
  program.addCommand(replayCommand(context));
  program.addCommand(initCommand(context));
  program.addCommand(toolsCommand(context));
  program.addCommand(skillsCommand(context));
  program.addCommand(demoCommand(context));
  program.addCommand(serveCommand(context));
  program.addCommand(mcpServeCommand(context));
  program.addCommand(trustCommand(context));
  program.addCommand(permissionsCommand(context));
  program.addCommand(workerCommand(context));
  // addCommand() does not pass settings down (only .command() does): apply them to every command.
  for (const command of [program, ...program.commands]) {
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: (text, write) => write(errorStyle.red(text)),
      })
      .showHelpAfterError('(run with --help for usage)');
  }
  return program;
}
