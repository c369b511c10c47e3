import { type Command, InvalidArgumentError, Option } from 'commander';
import { BUILT_IN_SKILLS } from './built-in-skills';
import { type CliCommandPreset, parseCommandPreset } from './command-preset';
import { MCP_FLAG_HELP } from './mcp-tools';
import { collect, dollars, duration, nonNegativeInteger, positiveInteger } from './parse-options';
import { addProjectFlags } from './project-flags';
import { STORE_FLAG_HELP } from './store-flag';

function collectPreset(
  value: string,
  previous: Record<string, CliCommandPreset> | undefined,
): Record<string, CliCommandPreset> {
  const { name, preset } = parseCommandPreset(value);
  if (previous && name in previous) throw new InvalidArgumentError(`the preset name "${name}" is given twice.`);
  return { ...previous, [name]: preset };
}

/** Adds the agent flags shared by `run`, `chat` and `batch` (see `AgentFlags`), the project flags included. */
export function addAgentFlags(command: Command): Command {
  return addProjectFlags(command)
    .option(
      '-m, --model <id>',
      'model id: openai:<model>, anthropic:<model>, openai-compatible:<baseURL>#<model>, or openai-compatible:<model> with $OPENAI_COMPATIBLE_BASE_URL (safe unquoted in .env) (default: $BRIDLE_MODEL, else from the API key present)',
    )
    .option(
      '-s, --skill <name-or-dir>',
      `a skill to use, repeatable: ${BUILT_IN_SKILLS.join(', ')} or a SKILL.md folder (default: assistant)`,
      collect,
    )
    .option('-w, --workspace <dir>', 'folder the agent may read and edit (adds the coding skill)')
    .option(
      '--allow-command <name=command>',
      'a command preset the agent may run in the workspace, repeatable (no shell; trailing {param} words are filled by the model), e.g. test="npm test"',
      collectPreset,
    )
    .option(
      '--sandbox',
      'offer the shell tool: bash commands in a bubblewrap sandbox over the workspace (no network, writes only inside it, asks before each command); --allow-command presets run in it too. Needs --workspace and bubblewrap (Linux)',
    )
    .option('--sandbox-network', 'let sandboxed commands use the network (default: none, not even 127.0.0.1)')
    .option('--mcp <file>', MCP_FLAG_HELP)
    .option('--max-steps <n>', 'most model calls per run (default 10)', positiveInteger)
    .addOption(
      new Option('--max-tool-calls <n>', 'most tool calls per run (default: unlimited)').argParser(nonNegativeInteger),
    )
    .option('--timeout <duration>', 'deadline per run: 30s, 500ms, 2m or seconds', duration)
    .option(
      '--max-cost <usd>',
      "budget per run in US dollars: no model call starts once the run's cost reached it (status budget_limit; counts only models with a known price)",
      dollars,
    )
    .option(
      '--approval-timeout <duration>',
      'how long a paused tool call waits for a decision (30s, 2m, 1h); once passed it is denied (a stored run: by the next bridle resume or server)',
      duration,
    )
    .option('--system <text>', 'system prompt (skills add their sections after it)')
    .option(
      '-y, --yes',
      'approve every tool call that needs approval (writes, edits, commands, MCP tools that are not read-only) without asking',
    )
    .option('--store <url>', STORE_FLAG_HELP);
}
