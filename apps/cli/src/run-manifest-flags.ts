import { manifestToolChanges } from '@bridle/core';
import { displayText } from '@bridle/models';
import { ConfigError, type RunManifest, type Tool } from '@bridle/protocol';
import type { AgentFlags } from './agent-setup';
import type { CliCommandPreset } from './command-preset';
import type { McpFlags } from './mcp-tools';
import { presetsSigned } from './preset-signature';

/** The flags that choose a run's tools: given any of them, `bridle resume` uses the flags as they are. */
function givesTools(flags: AgentFlags & McpFlags): boolean {
  return (
    flags.skill !== undefined ||
    flags.workspace !== undefined ||
    flags.allowCommand !== undefined ||
    flags.mcp !== undefined ||
    flags.sandbox === true
  );
}

/**
 * The tool flags `bridle resume` continues a run with: the user's own when they gave any (flags override),
 * else those the run's manifest recorded (skills, workspace folder, command presets). MCP servers cannot be
 * rebuilt from names alone: their file comes from `--mcp` or the settings, as for any command. Command presets
 * are programs to run, and the store may not be the user's (a store file in the workspace can be planted):
 * they are rebuilt only when signed with the user's decision key `key` (see `signPresets`); others are refused
 * (`ConfigError`, exit 2, nothing run) naming them and the flags that give them. Returns the flags and, when they
 * came from the manifest, a note for the person saying so.
 */
export function resumeToolFlags<Flags extends AgentFlags & McpFlags>(
  runId: string,
  flags: Flags,
  manifest: RunManifest | undefined,
  key: Uint8Array,
): { flags: Flags; restored?: string } {
  if (manifest === undefined || givesTools(flags)) return { flags };
  if (manifest.presets !== undefined && manifest.presets.length > 0 && !presetsSigned(key, manifest))
    throw new ConfigError(
      `Run ${runId} recorded command presets (${manifest.presets.map((preset) => displayText(preset.name)).join(', ')}) that your decision key did not sign: they may not be yours (the store may have been written by someone else), so they are not rebuilt from it. If you trust them, give the run's tools yourself: --allow-command NAME=CMD for each${manifest.workspace === undefined ? '' : `, -w ${displayText(manifest.workspace)}`}${(manifest.skills ?? []).map((skill) => ` --skill ${displayText(skill)}`).join('')}. Nothing was run; the run can still be resumed.`,
    );
  const restored: Flags = { ...flags };
  const words: string[] = [];
  if (manifest.workspace !== undefined) {
    restored.workspace = manifest.workspace;
    words.push(`-w ${manifest.workspace}`);
  }
  if (manifest.skills !== undefined && manifest.skills.length > 0) {
    restored.skill = [...manifest.skills];
    words.push(...manifest.skills.map((skill) => `--skill ${skill}`));
  }
  if (manifest.presets !== undefined && manifest.presets.length > 0) {
    restored.allowCommand = Object.fromEntries(
      manifest.presets.map((preset) => [preset.name, preset.definition as unknown as CliCommandPreset]),
    );
    words.push(...manifest.presets.map((preset) => `--allow-command ${preset.name}`));
  }
  return words.length === 0 ? { flags } : { flags: restored, restored: words.join(' ') };
}

/**
 * Refuses (exit 2, before any model call; the run stays resumable) a resume whose tools differ from those the
 * run had (its manifest): tools it lacks always, naming them and the flags that give them; tools it adds or
 * whose argument schema changed unless `allowChanges` (`--allow-tool-changes`), naming each.
 */
export function assertToolsRebuilt(
  runId: string,
  manifest: RunManifest | undefined,
  tools: readonly Tool[],
  allowChanges = false,
): void {
  if (manifest === undefined) return;
  const { missing, added, changed } = manifestToolChanges(manifest, tools);
  const names = (list: string[]) => list.map((name) => displayText(name)).join(', ');
  if (missing.length > 0) {
    const hints: string[] = [];
    if (manifest.workspace !== undefined) hints.push(`-w ${manifest.workspace}`);
    for (const skill of manifest.skills ?? []) hints.push(`--skill ${skill}`);
    for (const preset of manifest.presets ?? []) hints.push(`--allow-command ${preset.name}=...`);
    if (missing.includes('shell')) hints.push('--sandbox');
    if (manifest.mcpServers !== undefined && manifest.mcpServers.length > 0)
      hints.push(`--mcp <file> (a file with the MCP servers ${manifest.mcpServers.join(', ')})`);
    throw new ConfigError(
      `Run ${runId} had tools these flags and settings do not give: ${names(missing)}. Pass the flags it ran with${hints.length > 0 ? `: ${displayText(hints.join(' '))}` : ''}. Nothing was run; the run can still be resumed.`,
    );
  }
  if (allowChanges || added.length + changed.length === 0) return;
  const parts = [
    ...(added.length > 0 ? [`tools it did not have: ${names(added)}`] : []),
    ...(changed.length > 0 ? [`tools whose arguments changed since it ran: ${names(changed)}`] : []),
  ];
  throw new ConfigError(
    `Run ${runId} would continue with other tools than it had (${parts.join('; ')}). Pass the flags it ran with, or --allow-tool-changes to continue with these tools. Nothing was run; the run can still be resumed.`,
  );
}
