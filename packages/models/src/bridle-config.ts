import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError, describeValue } from '@bridle/protocol';
import { displayText } from './display-text';
import { parseModelId } from './parse-model-id';
import { parsePermissionRule } from './permission-rule';

/** A command preset as `commandTool` of `@bridle/workspace-tools` takes it. */
export interface ConfigCommandPreset {
  executable: string;
  args?: string[];
  /** Parameter JSON Schemas (string schemas), checked in full when the tool is built. */
  params?: Record<string, Record<string, unknown>>;
  cwd?: string;
  env?: string[];
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** Run in the sandbox (bubblewrap): no network, writes only inside the workspace. */
  sandbox?: boolean;
}

/** The sandbox setting: `true`, or its options. Offers the `shell` tool (see `bridle --sandbox`). */
export type ConfigSandbox = boolean | { network?: boolean; env?: string[] };

/** An MCP server as in `.mcp.json`: a command to spawn, or a URL. */
export type ConfigMcpServer =
  | { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { type?: 'http' | 'sse'; url: string; headers?: Record<string, string> };

/** Approval policy for tools that require approval. */
export type ApprovalPolicy = 'ask' | 'yes' | 'deny';

/**
 * The shape shared by a folder's `bridle.config.json` (once trusted) and the user's
 * `~/.config/bridle/config.json` (always trusted). Relative paths (`workspace`, skill folders, an MCP
 * server's `command` and `cwd` when they are paths) are resolved against the file's folder.
 */
export interface BridleConfig {
  model?: string;
  /** Built-in skill names or SKILL.md folders, in order. */
  skill?: string[];
  workspace?: string;
  presets?: Record<string, ConfigCommandPreset>;
  mcpServers?: Record<string, ConfigMcpServer>;
  approval?: ApprovalPolicy;
  store?: string;
  maxSteps?: number;
  maxCostUsd?: number;
  sandbox?: ConfigSandbox;
  /**
   * Approval rules (`bridle permissions` explains them): calls they cover run without a question. A folder's
   * rules apply only once the folder is trusted; a rule never covers a protected path.
   */
  permissions?: ConfigPermissions;
}

/** The `permissions` setting: rules as written, e.g. `edit_file(src/**)`, `run_command(test)`. */
export interface ConfigPermissions {
  allow?: string[];
}

const TOP_KEYS = [
  'model',
  'skill',
  'workspace',
  'presets',
  'mcpServers',
  'approval',
  'store',
  'maxSteps',
  'maxCostUsd',
  'sandbox',
  'permissions',
];
const PRESET_KEYS = ['executable', 'args', 'params', 'cwd', 'env', 'timeoutMs', 'maxOutputBytes', 'sandbox'];
const SANDBOX_KEYS = ['network', 'env'];
const STDIO_KEYS = ['type', 'command', 'args', 'env', 'cwd'];
const URL_KEYS = ['type', 'url', 'headers'];
const APPROVALS: readonly string[] = ['ask', 'yes', 'deny'];

class Checker {
  constructor(readonly path: string) {}

  fail(field: string, problem: string): never {
    throw new ConfigError(
      `${displayText(this.path)}: ${field === '' ? 'the file' : `"${displayText(field)}"`} ${problem}. Fix the file: its shape is { model?, skill?, workspace?, presets?, mcpServers?, approval?, store?, maxSteps?, maxCostUsd?, sandbox?, permissions? }.`,
    );
  }

  object(field: string, value: unknown, keys?: readonly string[]): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(field, `must be an object, got ${describeValue(value)}`);
    const record = value as Record<string, unknown>;
    // JSON.parse makes "__proto__" an own key; copying it into a plain object would set a prototype.
    if (Object.hasOwn(record, '__proto__'))
      this.fail(field === '' ? '__proto__' : `${field}.__proto__`, 'is not allowed');
    if (keys) {
      for (const key of Object.keys(record)) {
        if (!keys.includes(key))
          this.fail(field === '' ? key : `${field}.${key}`, `is not a known key (use ${keys.join(', ')})`);
      }
    }
    return record;
  }

  string(field: string, value: unknown): string {
    if (typeof value !== 'string' || value.trim() === '' || value.includes('\u0000'))
      this.fail(field, `must be a non-empty string, got ${describeValue(value)}`);
    return value;
  }

  strings(field: string, value: unknown): string[] {
    if (!Array.isArray(value)) this.fail(field, `must be an array of strings, got ${describeValue(value)}`);
    return value.map((item, index) => {
      if (typeof item !== 'string' || item.includes('\u0000'))
        this.fail(`${field}[${index}]`, `must be a string, got ${describeValue(item)}`);
      return item;
    });
  }

  stringRecord(field: string, value: unknown): Record<string, string> {
    const record = this.object(field, value);
    for (const [key, item] of Object.entries(record)) {
      if (typeof item !== 'string') this.fail(`${field}.${key}`, `must be a string, got ${describeValue(item)}`);
    }
    return record as Record<string, string>;
  }

  positiveInteger(field: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      this.fail(field, `must be a positive integer, got ${describeValue(value)}`);
    return value;
  }

  boolean(field: string, value: unknown): boolean {
    if (typeof value !== 'boolean') this.fail(field, `must be true or false, got ${describeValue(value)}`);
    return value;
  }

  positiveNumber(field: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      this.fail(field, `must be a positive number, got ${describeValue(value)}`);
    return value;
  }
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || value.startsWith('.') || isAbsolute(value);
}

/**
 * Parses and strictly checks a config file's text (JSON; a line whose first non-blank characters are `//` is
 * a comment, as in the starter `bridle init` writes): invalid JSON, an unknown key or a wrong type at any
 * level is a `ConfigError` naming the file and the field (the apps exit 2). The model id is checked
 * with {@link parseModelId}. Relative paths are resolved against the file's folder.
 */
export function parseBridleConfig(text: string, path: string): BridleConfig {
  let value: unknown;
  try {
    // Whole-line comments only: a JSON string cannot hold a raw line break, so such a line is never inside one.
    value = JSON.parse(text.replace(/^\uFEFF/, '').replace(/^[ \t]*\/\/.*$/gm, ''));
  } catch (error) {
    throw new ConfigError(`${displayText(path)} is not valid JSON: ${(error as Error).message}. Fix the file.`, {
      cause: error,
    });
  }
  const check = new Checker(path);
  const base = dirname(path);
  const record = check.object('', value, TOP_KEYS);
  const config: BridleConfig = {};
  if (record.model !== undefined) {
    const model = check.string('model', record.model);
    try {
      parseModelId(model);
    } catch (error) {
      check.fail('model', `is not a model id: ${(error as Error).message}`);
    }
    config.model = model.trim();
  }
  if (record.skill !== undefined) {
    const skills = typeof record.skill === 'string' ? [record.skill] : check.strings('skill', record.skill);
    config.skill = skills.map((skill, index) => {
      check.string(typeof record.skill === 'string' ? 'skill' : `skill[${index}]`, skill);
      return looksLikePath(skill) ? resolve(base, skill) : skill;
    });
  }
  if (record.workspace !== undefined) config.workspace = resolve(base, check.string('workspace', record.workspace));
  if (record.presets !== undefined) {
    config.presets = {};
    for (const [name, raw] of Object.entries(check.object('presets', record.presets))) {
      config.presets[name] = checkPreset(check, `presets.${name}`, raw);
    }
  }
  if (record.mcpServers !== undefined) {
    config.mcpServers = {};
    for (const [name, raw] of Object.entries(check.object('mcpServers', record.mcpServers))) {
      config.mcpServers[name] = checkMcpServer(check, `mcpServers.${name}`, raw, base);
    }
  }
  if (record.approval !== undefined) {
    if (typeof record.approval !== 'string' || !APPROVALS.includes(record.approval))
      check.fail('approval', `must be "ask", "yes" or "deny", got ${describeValue(record.approval)}`);
    config.approval = record.approval as ApprovalPolicy;
  }
  if (record.store !== undefined) config.store = check.string('store', record.store);
  if (record.maxSteps !== undefined) config.maxSteps = check.positiveInteger('maxSteps', record.maxSteps);
  if (record.maxCostUsd !== undefined) config.maxCostUsd = check.positiveNumber('maxCostUsd', record.maxCostUsd);
  if (record.sandbox !== undefined) {
    if (typeof record.sandbox === 'boolean') config.sandbox = record.sandbox;
    else {
      const sandbox = check.object('sandbox', record.sandbox, SANDBOX_KEYS);
      config.sandbox = {
        ...(sandbox.network === undefined ? {} : { network: check.boolean('sandbox.network', sandbox.network) }),
        ...(sandbox.env === undefined ? {} : { env: check.strings('sandbox.env', sandbox.env) }),
      };
    }
  }
  if (record.permissions !== undefined) {
    const permissions = check.object('permissions', record.permissions, ['allow']);
    if (permissions.allow !== undefined) {
      const allow = check.strings('permissions.allow', permissions.allow);
      allow.forEach((rule, index) => {
        try {
          parsePermissionRule(rule);
        } catch (error) {
          check.fail(`permissions.allow[${index}]`, (error as Error).message.replace(/\.$/, ''));
        }
      });
      config.permissions = { allow: allow.map((rule) => rule.trim()) };
    } else config.permissions = {};
  }
  return config;
}

function checkPreset(check: Checker, field: string, raw: unknown): ConfigCommandPreset {
  const record = check.object(field, raw, PRESET_KEYS);
  const preset: ConfigCommandPreset = { executable: check.string(`${field}.executable`, record.executable) };
  if (record.args !== undefined) preset.args = check.strings(`${field}.args`, record.args);
  if (record.params !== undefined) {
    const params = check.object(`${field}.params`, record.params);
    preset.params = {};
    for (const [name, schema] of Object.entries(params)) {
      preset.params[name] = check.object(`${field}.params.${name}`, schema);
    }
  }
  if (record.cwd !== undefined) preset.cwd = check.string(`${field}.cwd`, record.cwd);
  if (record.env !== undefined) preset.env = check.strings(`${field}.env`, record.env);
  if (record.timeoutMs !== undefined) preset.timeoutMs = check.positiveInteger(`${field}.timeoutMs`, record.timeoutMs);
  if (record.maxOutputBytes !== undefined)
    preset.maxOutputBytes = check.positiveInteger(`${field}.maxOutputBytes`, record.maxOutputBytes);
  if (record.sandbox !== undefined) preset.sandbox = check.boolean(`${field}.sandbox`, record.sandbox);
  return preset;
}

function checkMcpServer(check: Checker, field: string, raw: unknown, base: string): ConfigMcpServer {
  const record = check.object(field, raw);
  if (record.url !== undefined) {
    check.object(field, raw, URL_KEYS);
    const url = check.string(`${field}.url`, record.url);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      check.fail(`${field}.url`, `must be an http(s) URL, got ${describeValue(url)}`);
    if (record.type !== undefined && record.type !== 'http' && record.type !== 'sse')
      check.fail(`${field}.type`, `must be "http" or "sse" for a URL server, got ${describeValue(record.type)}`);
    return {
      ...(record.type === undefined ? {} : { type: record.type as 'http' | 'sse' }),
      url,
      ...(record.headers === undefined ? {} : { headers: check.stringRecord(`${field}.headers`, record.headers) }),
    };
  }
  check.object(field, raw, STDIO_KEYS);
  if (record.command === undefined) check.fail(field, 'needs "command" (a program to start) or "url"');
  const command = check.string(`${field}.command`, record.command);
  if (record.type !== undefined && record.type !== 'stdio')
    check.fail(`${field}.type`, `must be "stdio" for a command server, got ${describeValue(record.type)}`);
  return {
    ...(record.type === undefined ? {} : { type: 'stdio' as const }),
    command: looksLikePath(command) ? resolve(base, command) : command,
    ...(record.args === undefined ? {} : { args: check.strings(`${field}.args`, record.args) }),
    ...(record.env === undefined ? {} : { env: check.stringRecord(`${field}.env`, record.env) }),
    ...(record.cwd === undefined ? {} : { cwd: resolve(base, check.string(`${field}.cwd`, record.cwd)) }),
  };
}
