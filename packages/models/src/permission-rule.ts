import { ConfigError, describeValue } from '@bridle/protocol';
import { displayText } from './display-text';

/**
 * A remembered approval: calls of `tool` that need no question. `pattern` narrows it: a path glob for tools
 * called with a `path` (`edit_file(src/**)`), else the exact `command` (`run_command(test)`: one preset).
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
}

/** Longest rule text, in characters. */
export const MAX_PERMISSION_RULE_CHARS = 500;

const RULE = /^([A-Za-z0-9_.:-]+)(?:\((.*)\))?$/s;

/**
 * Parses a rule as written: `<tool>` or `<tool>(<pattern>)`, e.g. `edit_file(src/**)`, `run_command(test)`.
 * Throws `ConfigError` naming the rule and its shape for anything else (empty pattern, a line break, text
 * after the closing parenthesis, more than {@link MAX_PERMISSION_RULE_CHARS} characters).
 */
export function parsePermissionRule(text: unknown): PermissionRule {
  const shape =
    'write <tool> or <tool>(<pattern>), e.g. edit_file(src/**) (a path glob) or run_command(test) (one preset)';
  if (typeof text !== 'string')
    throw new ConfigError(`A permission rule must be a string, got ${describeValue(text)}: ${shape}.`);
  const trimmed = text.trim();
  const match = RULE.exec(trimmed);
  const pattern = match?.[2];
  if (
    match === null ||
    trimmed.length > MAX_PERMISSION_RULE_CHARS ||
    hasControlCharacter(trimmed) ||
    (pattern !== undefined && pattern.trim() === '')
  ) {
    throw new ConfigError(`"${displayText(text.slice(0, 200))}" is not a permission rule: ${shape}.`);
  }
  return pattern === undefined ? { tool: match[1]! } : { tool: match[1]!, pattern: pattern.trim() };
}

/** A rule as written (the form {@link parsePermissionRule} reads back). */
export function formatPermissionRule(rule: PermissionRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
