import type { JsonValue, Usage } from '@bridle/protocol';
import type { Batch } from './loop-state';
import type { StateContent } from './run-state';
import type { PausedSubAgent } from './sub-agent-pause';

/** The sub-agent part of a paused batch's state: the paused sub-agents and, without a journal, the results so far. */
export function subAgentState(batch: Batch, journaled: boolean): Partial<StateContent['batch']> {
  if (batch.subAgents.size === 0) return {};
  const saved: Partial<StateContent['batch']> = {
    subAgents: JSON.parse(JSON.stringify(Object.fromEntries(batch.subAgents))) as Record<string, JsonValue>,
  };
  if (!journaled && batch.results.size > 0) saved.results = Object.fromEntries(batch.results);
  return saved;
}

/** Restores the sub-agent part of a paused batch from its state; returns the usage the run had at the pause. */
export function restoreSubAgents(batch: Batch, saved: StateContent['batch']): void {
  for (const [callId, paused] of Object.entries(saved.subAgents ?? {}))
    batch.subAgents.set(callId, paused as unknown as PausedSubAgent);
  for (const [callId, result] of Object.entries(saved.results ?? {})) batch.results.set(callId, { ...result });
  // A paused call is known, not cut by a crash: its tool_start has no end because its sub-agent waits.
  for (const callId of batch.subAgents.keys()) batch.interrupted.delete(callId);
}

/** Sets `target` to `source` in place (a paused state's usage includes its sub-agents', which no model_end holds). */
export function setUsage(target: Usage, source: Usage): void {
  for (const key of Object.keys(target) as (keyof Usage)[]) delete target[key];
  Object.assign(target, source);
}
