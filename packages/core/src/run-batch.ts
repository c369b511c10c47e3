import type { AssistantMessage } from '@bridle/protocol';
import { decideApprovals, needsDecisions } from './approvals';
import { dispatchBatch } from './dispatch-batch';
import type { Batch, Ending } from './loop-state';
import type { RunContext } from './run-context';
import { Cancelled } from './run-scope';
import { pauseForSubAgents } from './sub-agent-batch';

function assistantMessage(batch: Batch): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', content: batch.content, toolCalls: batch.recorded };
  if (batch.providerData !== undefined) message.providerData = batch.providerData;
  return message;
}

/**
 * Takes one batch of tool calls from admission to tool messages: a batch larger than the remaining tool
 * budget ends the run (`tool_limit`, nothing appended); then every `requiresApproval` call is decided,
 * and a call that waits for a person pauses the run before the batch (`awaiting_approval`); else the
 * assistant message and one tool message per call are appended. A sub-agent that pauses for approval
 * while the batch runs pauses the run too (`awaiting_approval`, the batch taken back out of the transcript).
 * Returns an ending, or `undefined` to go on.
 */
export async function runBatch(run: RunContext, batch: Batch): Promise<Ending | undefined> {
  const { options, state, scope } = run;
  const count = batch.calls.length;
  const remaining = options.maxToolCalls - state.toolCalls;
  if (count > remaining)
    return {
      status: 'tool_limit',
      error: `The model asked for ${count} tool calls but only ${remaining} of maxToolCalls (${options.maxToolCalls}) remain; the batch was not run.`,
    };
  if (needsDecisions(batch, options.registry)) {
    // The model's response is durable before a person is asked (they may take hours, or the process may die).
    if (run.journal) await run.journal.flush();
    try {
      const pending = await decideApprovals(batch, {
        registry: options.registry,
        approve: options.approve,
        approvalTimeoutMs: options.approvalTimeoutMs,
        scope,
        runId: state.runId,
        emitter: run.emitter,
      });
      if (pending) return { status: 'awaiting_approval', paused: { batch, pending } };
    } catch (error) {
      // Cancelled while deciding: the batch is appended below, every call answered as cut.
      if (!(error instanceof Cancelled)) throw error;
    }
  }
  state.messages.push(assistantMessage(batch));
  state.toolCalls += count;
  const results = await dispatchBatch(run, batch);
  if (batch.pausing && !scope.reason) return pauseForSubAgents(run, batch, results);
  for (const result of results) state.messages.push(result);
  return undefined;
}
