import { resolve } from 'node:path';
import {
  bridleConfigDir,
  displayText,
  formatPermissionRule,
  parsePermissionRule,
  permissionsPath,
  readPermissionList,
  updatePermissionList,
} from '@bridle/models';
import { ConfigError } from '@bridle/protocol';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { canonicalFolder } from '../project-store-url';

/** Flags of `bridle permissions`. */
export interface PermissionsFlags {
  list?: boolean;
  revoke?: string;
  workspace?: string;
  json?: boolean;
}

/**
 * The `permissions` command's work: lists the rules remembered for the folder (`-w`, else the working directory),
 * or forgets one. Resolves with the exit code; a rule that is not remembered, or a corrupt `permissions.json`, is a
 * `ConfigError` (exit 2) naming the fix.
 */
export async function permissionsAction(context: CommandContext, flags: PermissionsFlags): Promise<number> {
  const { io, outputStyle: style } = context;
  if (flags.list && flags.revoke !== undefined)
    throw new ConfigError('bridle permissions takes one of --list or --revoke <rule>, not both.');
  const folder = canonicalFolder(resolve(io.cwd, flags.workspace ?? '.'));
  const path = permissionsPath(bridleConfigDir(io.env));
  if (flags.revoke !== undefined) {
    const rule = formatPermissionRule(parsePermissionRule(flags.revoke));
    let found = false;
    // Read first: revoking from a missing file must not create one.
    const rules = readPermissionList(path).folders[folder]?.rules ?? [];
    if (rules.some((entry) => entry.rule === rule)) {
      await updatePermissionList(path, (list) => {
        const entry = list.folders[folder];
        if (entry === undefined) return;
        const kept = entry.rules.filter((item) => item.rule !== rule);
        found = kept.length < entry.rules.length;
        if (kept.length === 0) delete list.folders[folder];
        else entry.rules = kept;
      });
    }
    if (!found)
      throw new ConfigError(
        `No rule ${displayText(rule)} is remembered for ${displayText(folder)}${rules.length > 0 ? ` (its rules: ${rules.map((entry) => displayText(entry.rule)).join(', ')})` : ''}: bridle permissions --list shows them; give -w DIR for another folder.`,
      );
    io.stdout.write(`Revoked ${displayText(rule)} for ${displayText(folder)}: its calls are asked again.\n`);
    return ExitCode.completed;
  }
  const rules = readPermissionList(path).folders[folder]?.rules ?? [];
  if (flags.json) {
    for (const entry of rules) io.stdout.write(`${JSON.stringify({ folder, ...entry })}\n`);
    return ExitCode.completed;
  }
  if (rules.length === 0) {
    io.stdout.write(`No rules remembered for ${displayText(folder)} (${displayText(path)}).\n`);
    return ExitCode.completed;
  }
  io.stdout.write(`Rules remembered for ${displayText(folder)}:\n`);
  const width = Math.max(...rules.map((entry) => displayText(entry.rule).length));
  for (const entry of rules)
    io.stdout.write(`  ${displayText(entry.rule).padEnd(width)}  ${style.dim(`since ${entry.addedAt}`)}\n`);
  return ExitCode.completed;
}
