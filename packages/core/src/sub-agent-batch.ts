import type { ToolCall, ToolMessage } from '@bridle/protocol';
import type { Batch, Ending } from './loop-state';
import type { RunContext } from './run-context';

/**
 * Ends a batch in which a sub-agent (`agentTool`) paused for approval: the results of the calls that
 * finished are kept in the batch (they never run again), the batch is taken back out of the transcript
 * (the messages end before it, as at any pause), and the run pauses with the sub-agents' pending calls
 * as its own. On resume the batch runs again: finished calls give their kept results, the paused
 * call resumes its sub-agent, and the calls after it run then.
 */
export function pauseForSubAgents(
  run: RunContext,
  batch: Batch,
  results: readonly (ToolMessage | undefined)[],
): Ending {
  const { state } = run;
  for (let at = 0; at < batch.calls.length; at++) {
    const call = batch.calls[at] as ToolCall;
    const result = results[at];
    if (result && !batch.subAgents.has(call.id))
      batch.results.set(call.id, { content: result.content, isError: result.isError });
  }
  // runBatch appended the assistant message and counted the calls before dispatching them.
  state.messages.pop();
  state.toolCalls -= batch.calls.length;
  batch.pausing = false;
  const pending = [...batch.subAgents.values()].flatMap((paused) => paused.pending);
  return { status: 'awaiting_approval', paused: { batch, pending } };
}
