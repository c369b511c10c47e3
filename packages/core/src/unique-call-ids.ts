import type { ToolCall } from '@bridle/protocol';
import type { LoopState } from './loop-state';

/** Every call id the run has seen: its transcript's and the carried batch's (built once per segment). */
function seenCallIds(state: LoopState): Set<string> {
  const seen = new Set<string>();
  for (const message of state.messages) {
    if (message.role !== 'assistant' || message.toolCalls === undefined) continue;
    for (const call of message.toolCalls) seen.add(call.id);
  }
  for (const call of state.carried?.recorded ?? []) seen.add(call.id);
  return seen;
}

/**
 * Makes a response's call ids unique within the run: a call whose id the run has already seen (the model
 * reused `call_1` in a later batch, or an adapter numbered calls per response) gets `<id>-<n>` with the
 * smallest `n` from 2 that is still free. The new id is used everywhere after this point (transcript,
 * events, tool context, approvals), so the transcript stays consistent for the provider, and a decision
 * made on an earlier call can never apply to this one. Returns `calls` itself when nothing was renamed;
 * a renamed call is a new object (its arguments are the model's own object).
 */
export function uniqueCallIds(state: LoopState, calls: readonly ToolCall[]): readonly ToolCall[] {
  state.callIds ??= seenCallIds(state);
  const seen = state.callIds;
  let renamed: ToolCall[] | undefined;
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index] as ToolCall;
    let id = call.id;
    if (seen.has(id)) {
      let suffix = 2;
      while (seen.has(`${call.id}-${suffix}`) || calls.some((other) => other.id === `${call.id}-${suffix}`)) suffix++;
      id = `${call.id}-${suffix}`;
      renamed ??= calls.slice();
      renamed[index] = { id, name: call.name, arguments: call.arguments };
    }
    seen.add(id);
  }
  return renamed ?? calls;
}
