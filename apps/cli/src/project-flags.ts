import type { Command } from 'commander';
import { collect } from './parse-options';

/** The flags that say which files the user's settings come from (see {@link addProjectFlags}). */
export interface ProjectFlags {
  envFile?: string[];
  trustProject?: boolean;
}

/**
 * Adds `--env-file <path>` (repeatable: every variable of that file, because the user named it) and
 * `--trust-project` (this run uses the folder's `bridle.config.json` and `.mcp.json` without asking;
 * not remembered).
 */
export function addProjectFlags(command: Command): Command {
  return command
    .option(
      '--env-file <path>',
      "load every variable of this file (a folder's own .env gives API keys only), repeatable; shell variables still win",
      collect,
    )
    .option(
      '--trust-project',
      "use this folder's bridle.config.json and .mcp.json for this run without asking (not remembered)",
    );
}
