import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { ConfigError, type Sandbox, type Tool, type ToolContext } from '@bridle/protocol';
import { expectArguments, invalidArguments, stringArgument } from './check-arguments';
import { GIT_SAFETY_ARGUMENTS, GIT_SAFETY_ENVIRONMENT, isGit } from './git-safety';
import { type CommandPreset, type ResolvedPreset, resolvePreset } from './resolve-preset';
import { type CommandResult, runProcess } from './run-process';
import { WorkspaceError } from './workspace-error';

/**
 * What the command tool needs of a workspace: a verified directory to run in and, for presets with
 * `format: 'workspace-path'` parameters, a path check (see {@link Workspace.checkPath}).
 */
export interface CommandWorkspace {
  withDirectory<T>(path: string | undefined, use: (directoryPath: string) => T | Promise<T>): Promise<T>;
  checkPath?(path: string, options?: { label?: string }): Promise<string>;
}

/** Arguments of the command tool. */
export interface CommandArguments {
  command: string;
  params?: Record<string, string>;
}

/** Options of {@link commandTool}. */
export interface CommandToolOptions {
  /** Tool name. Default `run_command`. */
  name?: string;
  /** Ask the loop's approve hook before each run. Default false. */
  requiresApproval?: boolean;
  /** Time between SIGTERM and SIGKILL of the process group, in milliseconds. Default 2,000. */
  killGraceMs?: number;
  /**
   * Where presets with `sandbox: true` run (e.g. `openBubblewrapSandbox` of `@bridle/sandbox`, over the
   * same folder as the workspace). Required when a preset asks for it.
   */
  sandbox?: Sandbox;
}

/**
 * A tool that runs one of a fixed set of commands, chosen by name (an enum in the schema). Never a
 * shell: the executable was resolved to an absolute path here, at creation, and the model only
 * supplies validated parameter values, each one argv entry, none starting with "-". Each run has
 * its own process group, killed whole on timeout or abort (SIGTERM, then SIGKILL). Throws
 * `ConfigError` at creation for a bad preset or a missing executable. A run that ends with a
 * non-zero status is a result, not an error; an aborted run throws.
 */
export function commandTool(
  workspace: CommandWorkspace,
  presets: Record<string, CommandPreset>,
  options: CommandToolOptions = {},
): Tool<CommandArguments, CommandResult> {
  if (typeof presets !== 'object' || presets === null || Object.keys(presets).length === 0) {
    throw new ConfigError(
      'commandTool needs at least one preset, e.g. { test: { executable: "npm", args: ["test"] } }.',
    );
  }
  const resolved = new Map<string, ResolvedPreset>();
  for (const [name, preset] of Object.entries(presets)) resolved.set(name, resolvePreset(name, preset));
  const needsPaths = [...resolved.values()].some((preset) => preset.params.some((param) => param.path));
  if (needsPaths && typeof workspace.checkPath !== 'function') {
    throw new ConfigError(
      'commandTool: a preset has a "workspace-path" parameter, but the workspace given has no checkPath(); pass a Workspace from Workspace.open().',
    );
  }
  const sandboxed = [...resolved.values()].filter((preset) => preset.sandbox).map((preset) => preset.name);
  const sandbox = options.sandbox;
  if (sandboxed.length > 0 && (typeof sandbox !== 'object' || sandbox === null || typeof sandbox.run !== 'function')) {
    throw new ConfigError(
      `Preset "${sandboxed[0]}" has sandbox: true, but commandTool was given no sandbox: pass { sandbox } (openBubblewrapSandbox from @bridle/sandbox, over the workspace folder), or remove "sandbox" from the preset.`,
    );
  }
  const root = (workspace as { root?: unknown }).root;
  if (sandbox !== undefined && typeof root === 'string' && root !== sandbox.root) {
    throw new ConfigError(
      `commandTool: the sandbox is over ${sandbox.root}, the workspace is ${root}; open the sandbox over the workspace's folder.`,
    );
  }
  const killGraceMs = options.killGraceMs ?? 2_000;
  if (!Number.isSafeInteger(killGraceMs) || killGraceMs < 0) {
    throw new ConfigError('commandTool option "killGraceMs" must be a non-negative integer of milliseconds.');
  }
  const toolName = options.name ?? 'run_command';
  const names = [...resolved.keys()];
  return {
    name: toolName,
    description: describe(resolved, sandbox?.network ?? false),
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: names, description: commandDescription(resolved) },
        params: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: "Values for the chosen command's parameters (see the description), each passed as one argument.",
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    requiresApproval: options.requiresApproval ?? false,
    async execute(input, context?: ToolContext) {
      const args = expectArguments(toolName, input, ['command', 'params']);
      const command = stringArgument(toolName, args, 'command', { required: true });
      const preset = resolved.get(command);
      if (preset === undefined) {
        throw invalidArguments(
          toolName,
          `unknown command ${JSON.stringify(command)}; choose one of ${names.join(', ')}`,
        );
      }
      const values = await jailPaths(workspace, preset, parameterValues(toolName, preset, args.params));
      const signal = context?.signal;
      if (signal?.aborted) throw new WorkspaceError('aborted', `Command "${command}" was aborted before it started.`);
      if (preset.sandbox) return runSandboxed(sandbox!, preset, values, signal);
      const outcome = await workspace.withDirectory(preset.cwd, (cwd) => {
        // The signal may have aborted while the directory was checked: its listener below would never fire.
        if (signal?.aborted) throw new WorkspaceError('aborted', `Command "${command}" was aborted before it started.`);
        try {
          // `done` can reject as soon as the next tick (ENOENT: the executable vanished since creation),
          // before this directory is closed and the outcome awaited: observe it now, never unhandled.
          return settleLater(
            runProcess({
              executable: preset.executable,
              args: isGit(preset.executable)
                ? [...GIT_SAFETY_ARGUMENTS, ...preset.args, ...values]
                : [...preset.args, ...values],
              cwd,
              env: isGit(preset.executable)
                ? { ...environment(preset.env), ...GIT_SAFETY_ENVIRONMENT }
                : environment(preset.env),
              timeoutMs: preset.timeoutMs,
              maxOutputBytes: preset.maxOutputBytes,
              killGraceMs,
              signal,
            }).done,
          );
        } catch (error) {
          throw startFailure(command, error);
        }
      });
      if (!outcome.ok) throw startFailure(command, outcome.error);
      const { aborted, ...result } = outcome.value;
      if (aborted)
        throw new WorkspaceError('aborted', `Command "${command}" was aborted; its whole process group was stopped.`);
      return result;
    },
  };
}

/** Runs a `sandbox: true` preset inside the sandbox; its result adds `refusals` when the sandbox stepped in. */
async function runSandboxed(
  sandbox: Sandbox,
  preset: ResolvedPreset,
  values: string[],
  signal: AbortSignal | undefined,
): Promise<CommandResult> {
  const git = isGit(preset.executable);
  const env = git ? { ...environment(preset.env), ...GIT_SAFETY_ENVIRONMENT } : environment(preset.env);
  // The sandbox sets its own PATH (the user's, from its allow-list); the preset's executable is absolute, and
  // started by its real path: a link in a folder the sandbox replaces (under /tmp or a home folder) is not there.
  delete env.PATH;
  const executable = realExecutable(preset.executable);
  let outcome: Awaited<ReturnType<Sandbox['run']>>;
  try {
    outcome = await sandbox.run({
      argv: [executable, ...(git ? GIT_SAFETY_ARGUMENTS : []), ...preset.args, ...values],
      ...(preset.cwd === undefined ? {} : { cwd: preset.cwd }),
      env,
      timeoutMs: preset.timeoutMs,
      maxOutputBytes: preset.maxOutputBytes,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw startFailure(preset.name, error);
  }
  const { aborted, refusals, ...result } = outcome;
  if (aborted)
    throw new WorkspaceError(
      'aborted',
      `Command "${preset.name}" was aborted; every process of its sandbox was stopped.`,
    );
  return refusals.length > 0 ? { ...result, refusals } : result;
}

/** A promise that never rejects: its outcome as data, observed from the moment it is created. */
function settleLater<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function startFailure(command: string, error: unknown): WorkspaceError {
  const tooLarge =
    (error as NodeJS.ErrnoException).code === 'E2BIG'
      ? ' (the arguments or environment are too large; pass less text, e.g. a file path instead of its content)'
      : '';
  return new WorkspaceError(
    'command_failed',
    `Command "${command}" could not start: ${(error as Error).message}${tooLarge}`,
    {
      cause: error,
    },
  );
}

function parameterValues(tool: string, preset: ResolvedPreset, params: unknown): string[] {
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw invalidArguments(tool, '"params" must be an object of strings');
  }
  const given = (params ?? {}) as Record<string, unknown>;
  const declared = preset.params.map((param) => param.name);
  for (const key of Object.keys(given)) {
    if (!declared.includes(key)) {
      throw invalidArguments(
        tool,
        `command "${preset.name}" has no parameter ${JSON.stringify(key)}; ${declared.length ? `its parameters: ${declared.join(', ')}` : 'it takes none'}`,
      );
    }
  }
  return preset.params.map((param) => {
    if (!Object.hasOwn(given, param.name))
      throw invalidArguments(tool, `command "${preset.name}" needs "params.${param.name}"`);
    return param.check(tool, given[param.name]);
  });
}

/**
 * Checks each `workspace-path` value with the workspace's path rules and rewrites it relative to the
 * preset's cwd (the program resolves it from there). Other values pass unchanged.
 */
async function jailPaths(workspace: CommandWorkspace, preset: ResolvedPreset, values: string[]): Promise<string[]> {
  return Promise.all(
    values.map(async (value, index) => {
      const param = preset.params[index]!;
      if (!param.path) return value;
      const relative = await workspace.checkPath!(value, { label: `params.${param.name}` });
      return posix.relative(preset.cwd ?? '', relative) || '.';
    }),
  );
}

function environment(names: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', ...names]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function describe(presets: Map<string, ResolvedPreset>, network: boolean): string {
  const lines = [
    'Run one of these preset commands in the workspace (no shell; parameters are passed as single arguments and may not start with "-"):',
  ];
  for (const preset of presets.values()) {
    const params = preset.params.map((param) => {
      const what = param.path ? ' (a path relative to the workspace root)' : '';
      const detail = `${what}${typeof param.schema.description === 'string' ? `: ${param.schema.description}` : ''}`;
      const choices = Array.isArray(param.schema.enum) ? ` (one of ${param.schema.enum.join(', ')})` : '';
      return `${param.name}${detail}${choices}`;
    });
    const what = preset.description === undefined ? '' : `${preset.description} `;
    const where = preset.sandbox
      ? ` in a sandbox: ${network ? '' : 'no network, '}writes only inside the workspace`
      : '';
    lines.push(
      `- ${preset.name}: ${what}(runs ${[preset.executable, ...preset.args].join(' ')}${where})${params.length ? `; params: ${params.join('; ')}` : ''}`,
    );
  }
  return lines.join('\n');
}

/** The `command` property's description: each preset name with what it does, when the preset says. */
function commandDescription(presets: Map<string, ResolvedPreset>): string {
  const described = [...presets.values()].filter((preset) => preset.description !== undefined);
  if (described.length === 0) return 'Which preset command to run.';
  return `Which preset command to run: ${described.map((preset) => `"${preset.name}" ${preset.description}`).join('; ')}.`;
}

/** The file a preset's executable names, links followed; the path as given when it cannot be read. */
function realExecutable(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
