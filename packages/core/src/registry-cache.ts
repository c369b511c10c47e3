import type { Tool } from '@bridle/protocol';
import { ToolRegistry } from '@bridle/registry';

/**
 * Registries of earlier runs, reused while the tools are unchanged: a server or a batch running many runs
 * over one tool list would otherwise rebuild the registry every run (~3 µs for three tools, a fifth of a
 * one-step run's setup). Keyed by the first tool object, so a fresh array of the same tools hits too.
 * "Unchanged" compares, by identity, every field the registry reads (each tool object, its fields and its
 * symbol-keyed hidden schema), so the result is exactly what `new ToolRegistry(tools)` would give.
 */
const cache = new WeakMap<Tool, { fields: unknown[]; registry: ToolRegistry }[]>();
/** Tool lists remembered per first tool, newest first. */
const MAX_LISTS_PER_TOOL = 8;
const EMPTY = new ToolRegistry([]);

function fieldsOf(tools: readonly Tool[]): unknown[] {
  const fields: unknown[] = [];
  for (const tool of tools) {
    fields.push(tool, tool.name, tool.description, tool.parameters, tool.execute, tool.readOnly, tool.requiresApproval);
    for (const key of Object.getOwnPropertySymbols(tool))
      fields.push(key, (tool as unknown as Record<symbol, unknown>)[key]);
  }
  return fields;
}

function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** `new ToolRegistry(tools)`, or an equal one built earlier for the same, unchanged tools. */
export function registryFor(tools: readonly Tool[]): ToolRegistry {
  const first = tools[0];
  if (first === undefined) return EMPTY;
  const fields = fieldsOf(tools);
  const lists = cache.get(first);
  const hit = lists?.find((entry) => same(entry.fields, fields));
  if (hit !== undefined) return hit.registry;
  const registry = new ToolRegistry(tools as Tool[]);
  if (lists === undefined) cache.set(first, [{ fields, registry }]);
  else {
    lists.unshift({ fields, registry });
    if (lists.length > MAX_LISTS_PER_TOOL) lists.pop();
  }
  return registry;
}
