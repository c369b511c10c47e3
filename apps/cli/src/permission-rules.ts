import { posix } from 'node:path';
import {
  formatPermissionRule,
  type PermissionRule,
  parsePermissionRule,
  permissionsPath,
  readPermissionList,
  updatePermissionList,
} from '@bridle/models';
import type { ToolCall } from '@bridle/protocol';
import type { Workspace } from '@bridle/workspace-tools';
import picomatch from 'picomatch';

/** What the approval prompt asks of the rules that approve calls without a question. */
export interface ApprovalRules {
  /** The rule (as written) that approves `call` without a question, or undefined: then it is asked. */
  match(call: ToolCall): Promise<string | undefined>;
  /**
   * The rule an "always" answer to `call` would remember for this folder: `edit_file(src/**)` for a file in
   * `src`, `write_file(notes.md)` for one at the root, `run_command(test)` for a preset, else the tool's name.
   * Undefined when no rule may cover it (a protected or invalid path).
   */
  suggest(call: ToolCall): Promise<string | undefined>;
  /** Approves `rule` for the rest of this process (the `a` answer). */
  allow(rule: string): void;
  /** Remembers `rule` for this folder in `permissions.json` (and allows it). */
  remember(rule: string): Promise<void>;
}

/** Options of {@link approvalRules}. */
export interface ApprovalRulesOptions {
  /** The project folder the remembered rules belong to (its canonical path: the workspace, else the working directory). */
  folder: string;
  /** The user's config folder (holds `permissions.json`). */
  configDir: string;
  /** The workspace the paths of calls are checked against; without one, no rule covers a call with a path. */
  workspace?: Workspace;
  /** Rules of the config files (the user's, and a folder's once trusted). */
  configRules?: readonly string[];
}

/**
 * The rules of a folder: those remembered in `permissions.json` for it, the config files' `permissions.allow`,
 * and those allowed during this process. A rule `tool` covers every call of that tool, `tool(glob)` the calls
 * whose `path` matches the glob (picomatch, dotfiles included), `tool(text)` for a call without a path the calls
 * whose `command` is exactly `text` (one preset). A call whose `path` is protected (`.git`, `.env*`,
 * `.bridle/**`, ...), outside the workspace or otherwise refused by the workspace is never covered. Reads
 * `permissions.json` once: a corrupt file throws `ConfigError` naming it (never a silent allow).
 */
export function approvalRules(options: ApprovalRulesOptions): ApprovalRules {
  const path = permissionsPath(options.configDir);
  const remembered = readPermissionList(path).folders[options.folder]?.rules.map((entry) => entry.rule) ?? [];
  const active: { text: string; rule: PermissionRule; matches?: (path: string) => boolean }[] = [];
  const add = (text: string) => {
    if (active.some((entry) => entry.text === text)) return;
    const rule = parsePermissionRule(text);
    active.push({
      text,
      rule,
      ...(rule.pattern === undefined ? {} : { matches: picomatch(rule.pattern, { dot: true }) }),
    });
  };
  for (const text of [...remembered, ...(options.configRules ?? [])]) add(text);

  /** The call's path as the workspace would use it, or undefined when no rule may cover it. */
  const checkedPath = async (path: string): Promise<string | undefined> => {
    if (options.workspace === undefined) return undefined;
    try {
      return await options.workspace.checkPath(path);
    } catch {
      return undefined;
    }
  };
  const argumentsOf = (call: ToolCall) =>
    typeof call.arguments === 'object' && call.arguments !== null ? (call.arguments as Record<string, unknown>) : {};

  return {
    async match(call) {
      const args = argumentsOf(call);
      const candidates = active.filter((entry) => entry.rule.tool === call.name);
      if (candidates.length === 0) return undefined;
      if (args.path !== undefined) {
        const relative = typeof args.path === 'string' ? await checkedPath(args.path) : undefined;
        if (relative === undefined) return undefined;
        return candidates.find((entry) => entry.matches === undefined || entry.matches(relative))?.text;
      }
      return candidates.find((entry) => entry.rule.pattern === undefined || entry.rule.pattern === args.command)?.text;
    },
    async suggest(call) {
      const args = argumentsOf(call);
      if (args.path !== undefined) {
        const relative = typeof args.path === 'string' ? await checkedPath(args.path) : undefined;
        if (relative === undefined) return undefined;
        const folder = posix.dirname(relative);
        const pattern = folder === '.' ? escapeGlob(relative) : `${escapeGlob(folder)}/**`;
        return formatPermissionRule({ tool: call.name, pattern });
      }
      if (typeof args.command === 'string' && args.command.trim() !== '' && !/[\r\n()]/.test(args.command))
        return formatPermissionRule({ tool: call.name, pattern: args.command });
      return formatPermissionRule({ tool: call.name });
    },
    allow: add,
    async remember(text) {
      add(text);
      await updatePermissionList(path, (list) => {
        const entry = list.folders[options.folder] ?? { rules: [] };
        if (!entry.rules.some((item) => item.rule === text))
          entry.rules.push({ rule: text, addedAt: new Date().toISOString() });
        list.folders[options.folder] = entry;
      });
    },
  };
}

/** `text` with glob characters escaped, so a suggested rule names exactly that folder or file. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, (character) => `\\${character}`);
}
