import type { ToolCall, ToolMessage } from '@bridle/protocol';
import type { Batch } from './loop-state';
import type { RunContext } from './run-context';
import { cancelledText, runToolCall } from './run-tool-call';

/**
 * Runs the tool calls of a batch and returns exactly one tool message per call, in call order (results
 * journaled before a crash are used as they are, without events). Consecutive calls of `readOnly` tools (without `requiresApproval`) run concurrently, at most `toolConcurrency` at a
 * time; every other call runs alone, in call order, after the calls before it finished. Once the run is
 * cancelled no further call starts, and calls that never ran get results saying cancelled or timed out.
 * Once a sub-agent paused for approval (`batch.pausing`) no further call starts either, and calls that
 * never ran have no message (the batch runs them when the run resumes).
 * Rejects only with a `JournalError` (a journal that cannot be written).
 */
export async function dispatchBatch(run: RunContext, batch: Batch): Promise<ToolMessage[]> {
  const { calls, results: known } = batch;
  const { scope } = run;
  const { registry, toolConcurrency } = run.options;
  const results: (ToolMessage | undefined)[] = new Array(calls.length);
  if (known.size > 0) {
    for (let at = 0; at < calls.length; at++) {
      const call = calls[at] as ToolCall;
      const outcome = known.get(call.id);
      if (outcome) results[at] = { role: 'tool', callId: call.id, name: call.name, ...outcome };
    }
  }
  const concurrent = (call: ToolCall) => {
    const tool = registry.get(call.name);
    return tool === undefined || (tool.readOnly === true && tool.requiresApproval !== true);
  };

  let index = 0;
  // A sub-agent that paused for approval pauses the batch: no further call starts (they run on resume).
  while (index < calls.length && !scope.reason && !batch.pausing) {
    if (results[index]) {
      index++;
      continue;
    }
    const call = calls[index] as ToolCall;
    if (!concurrent(call) || toolConcurrency === 1) {
      const message = runToolCall(call, run, batch);
      results[index] = message instanceof Promise ? await message : message;
      index++;
      continue;
    }
    let end = index + 1;
    while (end < calls.length && !results[end] && concurrent(calls[end] as ToolCall)) end++;
    let next = index;
    const worker = async () => {
      while (next < end && !scope.reason && !batch.pausing) {
        const at = next++;
        const message = runToolCall(calls[at] as ToolCall, run, batch);
        results[at] = message instanceof Promise ? await message : message;
      }
    };
    const workers = Math.min(toolConcurrency, end - index);
    if (workers === 1) await worker();
    else await Promise.all(Array.from({ length: workers }, worker));
    index = end;
  }

  if (batch.pausing && !scope.reason) return results as ToolMessage[];
  for (let at = 0; at < calls.length; at++) {
    const call = calls[at] as ToolCall;
    // Cancelled after a sub-agent paused: its call is answered as cut, like any other.
    const paused = batch.pausing && batch.subAgents.has(call.id);
    if (results[at] && !paused) continue;
    const reason = scope.reason ?? 'aborted';
    results[at] = {
      role: 'tool',
      callId: call.id,
      name: call.name,
      content: cancelledText(reason, call.name, paused),
      isError: true,
    };
  }
  return results as ToolMessage[];
}
