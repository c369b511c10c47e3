import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';

/** The starter `bridle init` writes: every setting, explained in `//` comment lines. */
export const STARTER_CONFIG = `// Bridle settings for this folder (bridle.config.json). Every key is optional: delete what you do not need.
// Precedence: flags > your shell's environment > this file > defaults. Lines starting with // are comments.
// A folder's file applies only once you trust the folder (bridle trust, or --trust-project): it can choose
// the model and endpoint, run programs and loosen approvals. Your own ~/.config/bridle/config.json has the same shape.
{
  // The model: openai:<model>, anthropic:<model>, openai-compatible:<baseURL>#<model>,
  // or openai-compatible:<model> with OPENAI_COMPATIBLE_BASE_URL. Keys come from your shell or .env.
  "model": "openai:gpt-4o-mini",

  // Skills by name (assistant, coding, analyst) or SKILL.md folders (./skills/review).
  "skill": ["coding"],

  // The folder the agent may read and edit (relative to this file). It adds the coding skill.
  "workspace": ".",

  // Programs the agent may run in the workspace, by name (no shell), e.g.
  // "presets": { "test": { "executable": "npm", "args": ["test"], "timeoutMs": 120000 } },

  // MCP servers whose tools the agent may use, as in .mcp.json, e.g.
  // "mcpServers": { "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] } },

  // Writes, edits and commands: "ask" on a terminal (denied without one), "yes" always, "deny" never.
  "approval": "ask",

  // Where runs and chat sessions are kept (bridle runs, resume, replay, chat --continue). Default: a
  // SQLite file per project in your data folder (~/.local/share/bridle/projects/...), outside this folder.
  // "store": "postgres://user@host:5432/bridle",

  // Most model calls per run, and the most dollars per run where the model's price is known.
  "maxSteps": 20
  // "maxCostUsd": 1
}
`;

/** `bridle init`: writes a commented starter `bridle.config.json` in the working directory. */
export function initCommand(context: CommandContext): Command {
  return new Command('init')
    .description('Write a commented starter bridle.config.json in this folder')
    .option('--force', 'overwrite an existing bridle.config.json')
    .action((flags: { force?: boolean }) => {
      const { io } = context;
      const path = join(io.cwd, 'bridle.config.json');
      if (existsSync(path) && !flags.force)
        throw new ConfigError(`${path} already exists: edit it, or pass --force to replace it with the starter.`);
      writeFileSync(path, STARTER_CONFIG);
      io.stderr.write(
        `Wrote ${path}. Edit it, then trust this folder to use it: bridle trust (or --trust-project for one run).\n`,
      );
      context.setExitCode(ExitCode.completed);
    });
}
