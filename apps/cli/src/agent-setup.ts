import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ManifestDetails } from '@bridle/core';
import { type BridleConfig, defaultModelId, resolveModel } from '@bridle/models';
import { ConfigError, type JsonValue, type Model, type Tool } from '@bridle/protocol';
import { openBubblewrapSandbox } from '@bridle/sandbox';
import {
  analystSkill,
  assistantSkill,
  codingSkill,
  composeSkills,
  createToolbox,
  loadSkill,
  type Skill,
} from '@bridle/skills';
import { type CommandPreset, Workspace } from '@bridle/workspace-tools';
import { BUILT_IN_SKILLS } from './built-in-skills';
import type { CliCommandPreset } from './command-preset';
import type { ProjectFlags } from './project-flags';

/** The agent flags shared by `run`, `chat` and `batch`, as commander parsed them. */
export interface AgentFlags extends ProjectFlags {
  model?: string;
  skill?: string[];
  workspace?: string;
  allowCommand?: Record<string, CliCommandPreset>;
  maxSteps?: number;
  maxToolCalls?: number;
  timeout?: number;
  /** `--max-cost`: the budget of each run in US dollars. */
  maxCost?: number;
  system?: string;
  /** Approve every tool call that needs approval. */
  yes?: boolean;
  /** Where runs and sessions are kept (see `openCliStore`). */
  store?: string;
  /** `--sandbox`: offer the shell tool in a bubblewrap sandbox over the workspace; flag presets run in it. */
  sandbox?: boolean;
  /** `--sandbox-network`: sandboxed commands may use the network. */
  sandboxNetwork?: boolean;
  /** `--approval-timeout`: how long a person has to decide a paused call, in ms. */
  approvalTimeout?: number;
}

/** Everything needed to start runs: the model, the composed system prompt and tools, the limits. */
export interface AgentSetup {
  model: Model;
  modelId: string;
  system?: string;
  tools: Tool[];
  skills: Skill[];
  /** The workspace's real path (`--workspace` or the config's), when there is one. */
  workspaceRoot?: string;
  /** The workspace itself (its path checks: remembered rules never cover a protected path). */
  workspace?: Workspace;
  limits: {
    maxSteps?: number;
    maxToolCalls?: number;
    timeoutMs?: number;
    budget?: { maxCostUsd: number };
    approvalTimeoutMs?: number;
  };
  /** What a journaled run records of this setup in its manifest (skills, workspace folder, presets). */
  manifest: ManifestDetails;
}

/**
 * The model id by precedence: `--model` > `BRIDLE_MODEL` (shell, or an `--env-file`) > the config files
 * (the user's, a trusted folder's) > the default from the keys present.
 */
export function chooseModelId(
  flagModel: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  config: BridleConfig = {},
): string {
  if (flagModel !== undefined) return flagModel;
  const fromEnv = env.BRIDLE_MODEL?.trim();
  if (fromEnv) return fromEnv;
  return config.model ?? defaultModelId(env);
}

/**
 * Turns the flags into an {@link AgentSetup}, on top of the settings of the config files (`config`:
 * the user's and a trusted folder's; flags win, then the shell environment, then the files). Skills:
 * the `--skill` values in order (a built-in name or a path to a SKILL.md folder whose tools come from
 * the built-in ones), else the config's `skill`; default `assistant`, or `coding` when a workspace is
 * given (it always adds `coding` on that folder). Presets: the config's, then `--allow-command` (a flag
 * preset replaces a config one of the same name). Throws `ConfigError` (exit code 2) for a bad model
 * id, a missing key, an unknown skill or a bad workspace.
 */
export async function buildAgentSetup(
  flags: AgentFlags,
  context: { env: Record<string, string | undefined>; cwd: string },
  config: BridleConfig = {},
): Promise<AgentSetup> {
  const modelId = chooseModelId(flags.model, context.env, config);
  const model = resolveModel(modelId, { env: context.env });
  if (
    Object.keys(flags.allowCommand ?? {}).length > 0 &&
    flags.workspace === undefined &&
    config.workspace === undefined
  ) {
    throw new ConfigError('--allow-command needs --workspace DIR: commands run inside the workspace folder.');
  }
  const flagPresets = Object.entries(flags.allowCommand ?? {}).map(([name, preset]) => [
    name,
    flags.sandbox ? { ...preset, sandbox: true } : preset,
  ]);
  const presets: Record<string, CommandPreset> = {
    ...(config.presets as Record<string, CommandPreset> | undefined),
    ...(Object.fromEntries(flagPresets) as Record<string, CommandPreset>),
  };
  const workspaceDir = flags.workspace === undefined ? config.workspace : resolve(context.cwd, flags.workspace);
  const workspace = workspaceDir === undefined ? undefined : await openWorkspace(workspaceDir);
  const sandbox = await openCliSandbox(flags, config, presets, workspace);
  const names = [...(flags.skill ?? config.skill ?? [])];
  const givenSkills = names.map((name) => (looksLikePath(name) ? resolve(context.cwd, name) : name));
  if (workspace !== undefined && !names.includes('coding')) names.push('coding');
  if (names.length === 0) names.push('assistant');

  // One instance of each tool, so skills that share a tool compose without a clash.
  const toolbox = createToolbox();
  const coding =
    workspace === undefined
      ? undefined
      : codingSkill({
          workspace,
          commands: presets,
          ...(sandbox ? { sandbox: sandbox.sandbox, shell: sandbox.shell } : {}),
        });
  const maxSteps = flags.maxSteps ?? config.maxSteps;
  const maxCostUsd = flags.maxCost ?? config.maxCostUsd;
  const catalogue: Tool[] = [toolbox.clock, toolbox.calculator, toolbox.httpFetch, ...(coding?.tools ?? [])];
  const skills: Skill[] = [];
  for (const name of names) {
    switch (name) {
      case 'assistant':
        skills.push(assistantSkill({ toolbox }));
        break;
      case 'analyst':
        skills.push(analystSkill({ toolbox }));
        break;
      case 'coding':
        if (coding === undefined)
          throw new ConfigError(
            '--skill coding needs --workspace DIR: the folder the agent may read, edit and run commands in.',
          );
        skills.push(coding);
        break;
      default:
        if (!looksLikePath(name)) {
          throw new ConfigError(
            `Unknown skill "${name}": use ${BUILT_IN_SKILLS.join(', ')} or a path to a folder with a SKILL.md (e.g. ./skills/review).`,
          );
        }
        skills.push(await loadSkill(resolve(context.cwd, name), { catalogue }));
    }
  }
  const composed = composeSkills(skills, flags.system === undefined ? {} : { system: flags.system });
  return {
    model,
    modelId,
    ...(composed.system === undefined ? {} : { system: composed.system }),
    tools: composed.tools,
    skills,
    ...(workspace === undefined ? {} : { workspaceRoot: workspace.root, workspace }),
    limits: {
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(flags.maxToolCalls === undefined ? {} : { maxToolCalls: flags.maxToolCalls }),
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
      ...(maxCostUsd === undefined ? {} : { budget: { maxCostUsd } }),
      ...(flags.approvalTimeout === undefined ? {} : { approvalTimeoutMs: flags.approvalTimeout }),
    },
    // Skills as given (paths made absolute), so `bridle resume` can rebuild the same tools from any folder.
    manifest: {
      ...(givenSkills.length > 0 ? { skills: givenSkills } : {}),
      ...(workspace === undefined ? {} : { workspace: workspace.root }),
      ...(Object.keys(presets).length > 0
        ? {
            presets: Object.entries(presets).map(([name, definition]) => ({
              name,
              definition: JSON.parse(JSON.stringify(definition)) as JsonValue,
            })),
          }
        : {}),
    },
  };
}

/**
 * The sandbox the flags and config files ask for: `--sandbox` or the config's `sandbox` offer the shell
 * tool; a preset marked `sandbox: true` needs one too. Opened over the workspace (it checks bubblewrap
 * works: `SandboxUnavailableError`, exit 2 naming it). Network: `--sandbox-network`, else the config's
 * `sandbox.network`, else none.
 */
async function openCliSandbox(
  flags: AgentFlags,
  config: BridleConfig,
  presets: Record<string, CommandPreset>,
  workspace: Workspace | undefined,
) {
  const setting = flags.sandbox ? true : config.sandbox;
  const shell = setting !== undefined && setting !== false;
  const sandboxed = Object.entries(presets).find(([, preset]) => preset.sandbox === true)?.[0];
  if (!shell && sandboxed === undefined) {
    if (flags.sandboxNetwork)
      throw new ConfigError(
        "--sandbox-network needs --sandbox (or presets marked sandbox: true): it opens the sandbox's network.",
      );
    return undefined;
  }
  if (workspace === undefined) {
    throw new ConfigError(
      shell
        ? '--sandbox needs --workspace DIR: the folder sandboxed commands may change.'
        : `Preset "${sandboxed}" has sandbox: true and needs --workspace DIR: the folder it may change.`,
    );
  }
  const options = typeof setting === 'object' ? setting : {};
  const sandbox = await openBubblewrapSandbox({
    root: workspace.root,
    network: flags.sandboxNetwork ?? options.network ?? false,
    ...(options.env ? { env: options.env } : {}),
  });
  return { sandbox, shell };
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || value.startsWith('.') || isAbsolute(value);
}

async function openWorkspace(root: string): Promise<Workspace> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`--workspace ${root} is not a folder: give an existing directory.`);
  // The agent may read, edit and run commands anywhere below the workspace: never the whole disk or the
  // home folder (keys, shell profiles), however they are spelled (`/`, `~`, a symlink to either).
  const real = await realpath(root);
  const home = await realpath(homedir()).catch(() => undefined);
  if (dirname(real) === real || real === home) {
    throw new ConfigError(
      `--workspace ${root} is ${real === home ? 'your home folder' : 'the root of the file system'} (${real}): the agent could read and change everything in it. Give the project folder instead.`,
    );
  }
  return await Workspace.open(root);
}
