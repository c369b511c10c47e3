import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  bridleConfigDir,
  displayText,
  formatPermissionRule,
  loadProjectConfig,
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
 * The `permissions` command's work: lists the rules that apply in the folder (`-w`, else the working directory):
 * those remembered for it, then those of the config files a run there would apply (the user's `config.json` and
 * the trusted folders' `bridle.config.json`; nothing is asked, an untrusted folder's file is left out with the
 * usual warning), or forgets a remembered one. Resolves with the exit code; a rule that is not remembered, or a
 * corrupt `permissions.json`, is a `ConfigError` (exit 2) naming the fix.
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
  const config = await configRules(context, flags.workspace);
  if (flags.json) {
    for (const entry of rules) io.stdout.write(`${JSON.stringify({ source: 'remembered', folder, ...entry })}\n`);
    for (const rule of config.rules)
      io.stdout.write(`${JSON.stringify({ source: 'config', rule, files: config.files })}\n`);
    return ExitCode.completed;
  }
  if (rules.length === 0) {
    io.stdout.write(`No rules remembered for ${displayText(folder)} (${displayText(path)}).\n`);
  } else {
    io.stdout.write(`Rules remembered for ${displayText(folder)}:\n`);
    const width = Math.max(...rules.map((entry) => displayText(entry.rule).length));
    for (const entry of rules)
      io.stdout.write(`  ${displayText(entry.rule).padEnd(width)}  ${style.dim(`since ${entry.addedAt}`)}\n`);
  }
  if (config.rules.length > 0) {
    io.stdout.write(`Rules from the config files applied here (${config.files.map(displayText).join(', ')}):\n`);
    for (const rule of config.rules) io.stdout.write(`  ${displayText(rule)}\n`);
  }
  return ExitCode.completed;
}

/**
 * The config files' `permissions.allow` as a run in the folder would apply them, and the files that hold any.
 * Nothing is asked: a folder is trusted only by an earlier answer (or `--trust-project` on a run).
 */
async function configRules(
  context: CommandContext,
  workspace: string | undefined,
): Promise<{ rules: string[]; files: string[] }> {
  const { io, errorStyle } = context;
  const folders = [io.cwd];
  const folder = workspace === undefined ? undefined : resolve(io.cwd, workspace);
  if (folder !== undefined && statSync(folder, { throwIfNoEntry: false })?.isDirectory()) folders.push(folder);
  const project = await loadProjectConfig({
    folders,
    env: io.env,
    warn: (line) => io.stderr.write(`${errorStyle.yellow(line)}\n`),
  });
  const rules = project.config.permissions?.allow ?? [];
  return { rules: [...new Set(rules)], files: rules.length > 0 ? project.files : [] };
}
