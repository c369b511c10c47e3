import { ConfigError } from '@bridle/protocol';
import type { LoopState } from './loop-state';
import { newRunId } from './new-run-id';
import { type ResolvedOptions, resolveOptions } from './resolve-options';
import { runManifest } from './run-manifest';
import { runSegment, type SegmentStart } from './run-segment';
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

/**
 * Runs an agent: calls the model, runs the tools it asks for, and repeats until a final answer or a
 * limit. Rejects with `ConfigError` for invalid options, before any model call; once the run has
 * started it always resolves with an {@link AgentResult} (failures become a status, error tool results
 * and events). The returned `messages` always pass `assertTranscript`. With a `store`, every event is
 * journaled; a store that cannot append makes it reject with `JournalError` (resume the run later).
 */
export function runAgent<Output = unknown>(options: RunAgentOptions<Output>): Promise<AgentResult<Output>> {
  // Not an async function: the segment's promise is returned as it is (an async wrapper would add a promise
  // and a turn of the microtask queue to every run). Every throw still becomes a rejection.
  try {
    const given = options as RunAgentOptions;
    const resolved = resolveOptions(given);
    const started =
      resolved.runId === undefined
        ? startRun(given, resolved, newRunId())
        : givenRunId(resolved, resolved.runId).then((runId) => startRun(given, resolved, runId));
    return started as Promise<AgentResult<Output>>;
  } catch (error) {
    return Promise.reject(error);
  }
}

function startRun(options: RunAgentOptions, resolved: ResolvedOptions, runId: string): Promise<AgentResult> {
  const state: LoopState = {
    runId,
    messages: resolved.messages,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  return runSegment(resolved, state, { runStart: runStartBody(options, resolved), firstSequence: 0 });
}

/** The body of a new run's `run_start`: fields in the order the journal has always written them. */
function runStartBody(options: RunAgentOptions, resolved: ResolvedOptions): SegmentStart['runStart'] {
  const body: SegmentStart['runStart'] = { model: resolved.model.id };
  if (resolved.system !== undefined) body.system = resolved.system;
  if (resolved.prompt !== undefined) body.prompt = resolved.prompt;
  if (resolved.sessionId !== undefined) body.sessionId = resolved.sessionId;
  const parent = (options as { [SUB_AGENT_OF]?: { runId: string; callId: string } })[SUB_AGENT_OF];
  // A sub-agent's parent run and call (set by `agentTool` under a symbol key, so no user option names it).
  if (parent !== undefined) body.parent = { runId: parent.runId, callId: parent.callId };
  if (resolved.store) {
    // A journal must be able to rebuild the run: a run that started from a transcript journals it.
    if (resolved.prompt === undefined) body.messages = [...resolved.messages];
    // What the run ran with, so a resume can rebuild its tools (and refuse other ones).
    body.manifest = runManifest(resolved);
  }
  return body;
}
