import { resolve } from 'node:path';
import {
  bridleConfigDir,
  displayText,
  listTrustedFolders,
  revokeFolder,
  trustFolder,
  trustListPath,
} from '@bridle/models';
import { ConfigError } from '@bridle/protocol';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';

/** Flags of `bridle trust`. */
export interface TrustFlags {
  list?: boolean;
  revoke?: string;
}

/** The `trust` command's work; resolves with the exit code. */
export async function trustAction(
  context: CommandContext,
  dir: string | undefined,
  flags: TrustFlags,
): Promise<number> {
  const { io, outputStyle: style } = context;
  const configDir = bridleConfigDir(io.env);
  if ([flags.list === true, flags.revoke !== undefined, dir !== undefined].filter(Boolean).length > 1) {
    throw new ConfigError('bridle trust takes one of: a folder to trust, --list, or --revoke DIR.');
  }
  if (flags.list) {
    const folders = listTrustedFolders(configDir);
    if (folders.length === 0) io.stdout.write(`No folders yet (${trustListPath(configDir)}).\n`);
    for (const entry of folders) {
      const label = entry.trusted ? style.green('trusted ') : style.yellow('declined');
      io.stdout.write(`${label}  ${entry.decidedAt}  ${displayText(entry.folder)}\n`);
    }
    return ExitCode.completed;
  }
  if (flags.revoke !== undefined) {
    const removed = await revokeFolder(resolve(io.cwd, flags.revoke), configDir);
    io.stdout.write(
      removed
        ? `Forgot ${displayText(resolve(io.cwd, flags.revoke))}: its files are ignored again until you trust it.\n`
        : `${displayText(resolve(io.cwd, flags.revoke))} was not in the list.\n`,
    );
    return ExitCode.completed;
  }
  const folder = resolve(io.cwd, dir ?? '.');
  const result = await trustFolder(folder, configDir);
  if (result === undefined) {
    io.stdout.write(`Nothing to trust in ${displayText(folder)}: it has no bridle.config.json or .mcp.json.\n`);
    return ExitCode.completed;
  }
  io.stdout.write(
    `${style.green('Trusted')} ${displayText(result.folder)} (${result.files.map(displayText).join(', ')}):\n`,
  );
  for (const line of result.lines) io.stdout.write(`  • ${line}\n`);
  io.stdout.write(style.dim('An edit to these files asks again. Undo with: bridle trust --revoke DIR\n'));
  return ExitCode.completed;
}
