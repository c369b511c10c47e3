import type { AssistantMessage, JsonValue } from '@bridle/protocol';

/** A `thinking` or `redacted_thinking` block exactly as Anthropic sent it (signature included). */
export type ThinkingBlockData = { [key: string]: JsonValue } & { type: 'thinking' | 'redacted_thinking' };

/**
 * What the Anthropic adapter keeps in `providerData.anthropic`: the model it asked (thinking blocks are bound to it),
 * the raw `stop_reason`, and the response's thinking blocks, in order, unchanged.
 */
export interface AnthropicProviderData {
  model: string;
  stopReason: string | null;
  thinking?: ThinkingBlockData[];
}

/** True for a thinking block as the API returns it: `thinking` with a string `signature`, or `redacted_thinking` with `data`. */
export function isThinkingBlock(block: unknown): block is ThinkingBlockData {
  if (typeof block !== 'object' || block === null) return false;
  const value = block as Record<string, unknown>;
  if (value.type === 'thinking') return typeof value.thinking === 'string' && typeof value.signature === 'string';
  return value.type === 'redacted_thinking' && typeof value.data === 'string';
}

/** The `providerData` of a response: `{ anthropic: { model, stopReason, thinking? } }`. */
export function anthropicProviderData(
  model: string,
  stopReason: string | null,
  thinking: readonly ThinkingBlockData[],
): JsonValue {
  const data: { [key: string]: JsonValue } = { model, stopReason };
  if (thinking.length > 0) data.thinking = [...thinking];
  return { anthropic: data };
}

/**
 * The thinking blocks of an assistant message to send back to `model`: those this adapter recorded for the same model.
 * Another provider's data, another model's blocks and anything malformed are ignored (an empty list).
 */
export function thinkingBlocksFor(message: AssistantMessage, model: string): ThinkingBlockData[] {
  const data = message.providerData;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const mine = (data as Record<string, JsonValue>).anthropic;
  if (typeof mine !== 'object' || mine === null || Array.isArray(mine) || mine.model !== model) return [];
  const thinking = mine.thinking;
  return Array.isArray(thinking) ? thinking.filter(isThinkingBlock) : [];
}
