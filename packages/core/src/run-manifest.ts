import { createHash } from 'node:crypto';
import { ConfigError, type RunManifest, type Tool } from '@bridle/protocol';
import { canonicalJson, redactCredentials } from '@bridle/protocol/internal';
import { ToolRegistry } from '@bridle/registry';
import type { ResolvedOptions } from './resolve-options';

/**
 * The digest of each argument schema object, computed once: a journaled run's manifest lists every tool's,
 * and canonical JSON plus SHA-256 of a few schemas cost more than the rest of a one-step run. A schema is
 * taken as it was when first offered (the registry compiles its validator once too).
 */
const schemaDigests = new WeakMap<object, string>();

function schemaDigest(parameters: object): string {
  let digest = schemaDigests.get(parameters);
  if (digest === undefined) {
    digest = `sha256:${createHash('sha256').update(canonicalJson(parameters)).digest('hex')}`;
    schemaDigests.set(parameters, digest);
  }
  return digest;
}

/** Every tool of a registry with `sha256:` over its arguments' JSON Schema (canonical JSON), in offer order. */
export function toolDigests(registry: ToolRegistry): RunManifest['tools'] {
  return registry.definitions().map((definition) => ({
    name: definition.name,
    schemaDigest:
      typeof definition.parameters === 'object' && definition.parameters !== null
        ? schemaDigest(definition.parameters)
        : `sha256:${createHash('sha256').update(canonicalJson(definition.parameters)).digest('hex')}`,
  }));
}

/** What a journaled run runs with, for its first `run_start`: no credentials, no env values, no headers. */
export function runManifest(options: ResolvedOptions): RunManifest {
  // Written field by field, in the order the journal has always had (the details given to `manifest` after the
  // model): spreads of small conditional objects cost measurably on every journaled run.
  const manifest = { model: redactCredentials(options.model.id) } as RunManifest;
  if (options.manifest !== undefined) Object.assign(manifest, options.manifest);
  manifest.tools = toolDigests(options.registry);
  const limits: RunManifest['limits'] = { maxSteps: options.maxSteps };
  if (Number.isFinite(options.maxToolCalls)) limits.maxToolCalls = options.maxToolCalls;
  if (options.timeoutMs !== undefined) limits.timeoutMs = options.timeoutMs;
  const { budget } = options;
  if (budget) {
    limits.budget = {};
    if (Number.isFinite(budget.maxTokens)) limits.budget.maxTokens = budget.maxTokens;
    if (Number.isFinite(budget.maxCostUsd)) limits.budget.maxCostUsd = budget.maxCostUsd;
  }
  if (options.approvalTimeoutMs !== undefined) limits.approvalTimeoutMs = options.approvalTimeoutMs;
  manifest.limits = limits;
  return manifest;
}

/** How a tool set differs from a manifest's: tools it lacks, tools it adds, tools whose argument schema changed. */
export interface ToolChanges {
  missing: string[];
  added: string[];
  changed: string[];
}

/** The difference between the tools a run was journaled with and `registry`'s (all lists empty: the same). */
export function toolChanges(manifest: RunManifest, registry: ToolRegistry): ToolChanges {
  const now = new Map(toolDigests(registry).map((tool) => [tool.name, tool.schemaDigest]));
  const then = new Map(manifest.tools.map((tool) => [tool.name, tool.schemaDigest]));
  return {
    missing: [...then.keys()].filter((name) => !now.has(name)),
    added: [...now.keys()].filter((name) => !then.has(name)),
    changed: [...then].filter(([name, digest]) => now.has(name) && now.get(name) !== digest).map(([name]) => name),
  };
}

/**
 * How `tools` differ from those a journaled run's `manifest` lists (its first `run_start`): what `resumeRun`
 * checks before it refuses a resume (unless `allowToolChanges: true`). Lets an app say which tools differ in its
 * own words before it resumes. Throws `ConfigError` for tools a run could not have (duplicate or invalid names).
 */
export function manifestToolChanges(manifest: RunManifest, tools: readonly Tool[]): ToolChanges {
  return toolChanges(manifest, new ToolRegistry([...tools]));
}

/** Throws `ConfigError` naming the difference when `registry` does not offer the tools the manifest lists. */
export function assertSameTools(runId: string, manifest: RunManifest, registry: ToolRegistry): void {
  const { missing, added, changed } = toolChanges(manifest, registry);
  if (missing.length + added.length + changed.length === 0) return;
  const list = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');
  const parts = [
    ...(missing.length > 0 ? [`missing ${list(missing)}`] : []),
    ...(added.length > 0 ? [`not in the run ${list(added)}`] : []),
    ...(changed.length > 0 ? [`with another argument schema ${list(changed)}`] : []),
  ];
  throw new ConfigError(
    `Run ${runId} was journaled with other tools than these (${parts.join('; ')}). Give it the tools its manifest lists (its first run_start), or pass allowToolChanges: true to continue with these. Nothing was run.`,
  );
}
