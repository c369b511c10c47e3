import { ConfigError, describeValue, type JsonSchema } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { parsePath } from './path-rules';
import { resolveExecutable } from './resolve-executable';
import { compileStringParameter, type StringParameter } from './string-parameter';

/** A command the model may run, chosen by name. See SPEC "Tools". */
export interface CommandPreset {
  /** A bare name looked up on PATH at creation, or an absolute path. */
  executable: string;
  /** What the command does, for the model (shown in the tool's description and schema). At most 500 characters. */
  description?: string;
  /** Fixed arguments, always passed first. Put `"--"` here when the program supports it. */
  args?: string[];
  /** Named string parameters the model fills in; appended after `args` in declaration order. All are required. */
  params?: Record<string, JsonSchema>;
  /** Working directory relative to the workspace root. Default: the root. */
  cwd?: string;
  /** Names of environment variables passed through (PATH always is). Default: none but PATH. */
  env?: string[];
  /** Wall-clock limit, in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** Most bytes kept of stdout and of stderr, each. Default 100,000. */
  maxOutputBytes?: number;
  /**
   * Run inside the sandbox given to `commandTool` (`{ sandbox }`): writes only inside the workspace, no
   * network, no secrets in the environment. Default false (the program runs as the user, unsandboxed).
   */
  sandbox?: boolean;
}

/** A preset checked and resolved at creation. */
export interface ResolvedPreset {
  name: string;
  description: string | undefined;
  executable: string;
  args: string[];
  params: StringParameter[];
  cwd: string | undefined;
  env: string[];
  timeoutMs: number;
  maxOutputBytes: number;
  sandbox: boolean;
}

const PRESET_KEYS = new Set([
  'executable',
  'description',
  'args',
  'params',
  'cwd',
  'env',
  'timeoutMs',
  'maxOutputBytes',
  'sandbox',
]);

/** Checks one preset and resolves its executable. Throws `ConfigError` naming the preset and the fix. */
export function resolvePreset(name: string, preset: unknown): ResolvedPreset {
  const where = `Preset "${name}"`;
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/.test(name)) {
    throw new ConfigError(`${where}: the name must be 1-64 letters, digits, "_", "." or "-".`);
  }
  if (typeof preset !== 'object' || preset === null || Array.isArray(preset)) {
    throw new ConfigError(`${where} must be an object, got ${describeValue(preset)}.`);
  }
  const record = preset as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!PRESET_KEYS.has(key))
      throw new ConfigError(`${where}: unknown option "${key}" (use ${[...PRESET_KEYS].join(', ')}).`);
  }
  if (typeof record.executable !== 'string' || record.executable === '' || record.executable.includes('\u0000')) {
    throw new ConfigError(`${where}: "executable" must be a non-empty string.`);
  }
  const description = record.description;
  if (
    description !== undefined &&
    (typeof description !== 'string' || description.trim() === '' || description.length > 500)
  ) {
    throw new ConfigError(`${where}: "description" must be a non-empty string of at most 500 characters.`);
  }
  if (record.sandbox !== undefined && typeof record.sandbox !== 'boolean') {
    throw new ConfigError(`${where}: "sandbox" must be true or false, got ${describeValue(record.sandbox)}.`);
  }
  const args = stringList(where, 'args', record.args);
  const env = stringList(where, 'env', record.env);
  for (const variable of env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
      throw new ConfigError(`${where}: "${variable}" is not a valid environment variable name.`);
  }
  let cwd: string | undefined;
  if (record.cwd !== undefined) {
    try {
      cwd = parsePath(record.cwd, { allowRoot: true, label: 'cwd' }).join('/') || undefined;
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
  }
  const paramsRecord = record.params ?? {};
  if (typeof paramsRecord !== 'object' || paramsRecord === null || Array.isArray(paramsRecord)) {
    throw new ConfigError(`${where}: "params" must be an object of parameter schemas.`);
  }
  const params = Object.entries(paramsRecord).map(([param, schema]) => compileStringParameter(name, param, schema));
  return {
    name,
    description: description?.trim(),
    executable: resolveExecutable(record.executable, name),
    args,
    params,
    cwd,
    env,
    timeoutMs: integerOption('timeoutMs', record.timeoutMs, 30_000, { min: 1, where: `commandTool preset "${name}"` }),
    maxOutputBytes: integerOption('maxOutputBytes', record.maxOutputBytes, 100_000, {
      min: 1,
      where: `commandTool preset "${name}"`,
    }),
    sandbox: record.sandbox === true,
  };
}

function stringList(where: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.includes('\u0000'))) {
    throw new ConfigError(`${where}: "${key}" must be an array of strings without NUL bytes.`);
  }
  return [...value];
}
