import { randomUUID } from 'node:crypto';
import { ConfigError } from '@bridle/protocol';
import type { LoopState } from './loop-state';
import { type ResolvedOptions, resolveOptions } from './resolve-options';
import { runManifest } from './run-manifest';
import { runSegment } from './run-segment';
import { SUB_AGENT_OF } from './sub-agent-pause';
import type { AgentResult, RunAgentOptions } from './types';

async function givenRunId(options: ResolvedOptions, runId: string): Promise<string> {
  const { store } = options;
  if (store && (await store.readRun(runId)) !== undefined)
    throw new ConfigError(
      `Invalid option runId: run ${JSON.stringify(runId)} is already in the store. Continue it with resumeRun({ store, runId }), or give a new runId.`,
    );
  return runId;
}

/** A sub-agent's parent run and call (set by `agentTool` under a symbol key, so no user option names it). */
function subAgentOf(options: RunAgentOptions): { parent?: { runId: string; callId: string } } {
  const parent = (options as { [SUB_AGENT_OF]?: { runId: string; callId: string } })[SUB_AGENT_OF];
  return parent === undefined ? {} : { parent: { runId: parent.runId, callId: parent.callId } };
}

/**
 * Runs an agent: calls the model, runs the tools it asks for, and repeats until a final answer or a
 * limit. Rejects with `ConfigError` for invalid options, before any model call; once the run has
 * started it always resolves with an {@link AgentResult} (failures become a status, error tool results
 * and events). The returned `messages` always pass `assertTranscript`. With a `store`, every event is
 * journaled; a store that cannot append makes it reject with `JournalError` (resume the run later).
 */
export async function runAgent<Output = unknown>(options: RunAgentOptions<Output>): Promise<AgentResult<Output>> {
  const resolved = resolveOptions(options as RunAgentOptions);
  const state: LoopState = {
    runId: resolved.runId === undefined ? randomUUID() : await givenRunId(resolved, resolved.runId),
    messages: resolved.messages,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  const runStart = {
    model: resolved.model.id,
    ...(resolved.system === undefined ? {} : { system: resolved.system }),
    ...(resolved.prompt === undefined ? {} : { prompt: resolved.prompt }),
    ...(resolved.sessionId === undefined ? {} : { sessionId: resolved.sessionId }),
    ...subAgentOf(options),
    // A journal must be able to rebuild the run: a run that started from a transcript journals it.
    ...(resolved.store && resolved.prompt === undefined ? { messages: [...resolved.messages] } : {}),
    // What the run ran with, so a resume can rebuild its tools (and refuse other ones).
    ...(resolved.store ? { manifest: runManifest(resolved) } : {}),
  };
  return (await runSegment(resolved, state, { runStart, firstSequence: 0 })) as AgentResult<Output>;
}
