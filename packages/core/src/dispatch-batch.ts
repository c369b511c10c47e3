import type { ToolCall, ToolMessage } from '@bridle/protocol';
import { cancelledText, runToolCall, type ToolCallContext } from './run-tool-call';
import type { ToolOutcome } from './tool-result-text';

/** What a batch needs beyond one call's context. */
export interface BatchContext extends ToolCallContext {
  toolConcurrency: number;
  /** Results known already (journaled before a crash): used as they are, without events. */
  known: ReadonlyMap<string, ToolOutcome> | undefined;
}

/**
 * Runs one batch of tool calls and returns exactly one tool message per call, in call order. Consecutive
 * calls of `readOnly` tools (without `requiresApproval`) run concurrently, at most `toolConcurrency` at a
 * time; every other call runs alone, in call order, after the calls before it finished. Once the run is
 * cancelled no further call starts, and calls that never ran get results saying cancelled or timed out.
 * Rejects only with a `JournalError` (a journal that cannot be written).
 */
export async function dispatchBatch(calls: readonly ToolCall[], context: BatchContext): Promise<ToolMessage[]> {
  const results: (ToolMessage | undefined)[] = new Array(calls.length);
  const { scope, registry, known } = context;
  if (known !== undefined && known.size > 0) {
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
  while (index < calls.length && !scope.reason) {
    if (results[index]) {
      index++;
      continue;
    }
    const call = calls[index] as ToolCall;
    if (!concurrent(call) || context.toolConcurrency === 1) {
      const message = runToolCall(call, context);
      results[index] = message instanceof Promise ? await message : message;
      index++;
      continue;
    }
    let end = index + 1;
    while (end < calls.length && !results[end] && concurrent(calls[end] as ToolCall)) end++;
    let next = index;
    const worker = async () => {
      while (next < end && !scope.reason) {
        const at = next++;
        const message = runToolCall(calls[at] as ToolCall, context);
        results[at] = message instanceof Promise ? await message : message;
      }
    };
    const workers = Math.min(context.toolConcurrency, end - index);
    if (workers === 1) await worker();
    else await Promise.all(Array.from({ length: workers }, worker));
    index = end;
  }

  for (let at = 0; at < calls.length; at++) {
    if (results[at]) continue;
    const call = calls[at] as ToolCall;
    const reason = scope.reason ?? 'aborted';
    results[at] = {
      role: 'tool',
      callId: call.id,
      name: call.name,
      content: cancelledText(reason, call.name, false),
      isError: true,
    };
  }
  return results as ToolMessage[];
}
