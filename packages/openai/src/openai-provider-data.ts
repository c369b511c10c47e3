import type { AssistantMessage, JsonValue } from '@bridle/protocol';

/** A Responses API `reasoning` output item exactly as the server sent it (`encrypted_content` included). */
export type ReasoningItemData = { [key: string]: JsonValue } & { type: 'reasoning' };

/**
 * What the OpenAI adapter keeps in `providerData[provider]` (`openai` or `openai-compatible`): the model it asked and
 * the API, the raw finish reason (`finishReason` of Chat; `status` and `incompleteReason` of Responses) and the
 * Responses reasoning items that carry `encrypted_content`, in order, unchanged.
 */
export interface OpenAIProviderData {
  model: string;
  api: 'responses' | 'chat';
  finishReason?: string | null;
  status?: string | null;
  incompleteReason?: string | null;
  reasoning?: ReasoningItemData[];
}

/** True for a reasoning item that can be sent back statelessly: `type: 'reasoning'` with a string `encrypted_content`. */
export function isReplayableReasoning(item: unknown): item is ReasoningItemData {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const value = item as Record<string, unknown>;
  return value.type === 'reasoning' && typeof value.encrypted_content === 'string';
}

/** `{ [provider]: data }`, with the optional fields left out when absent. */
export function openaiProviderData(provider: string, data: OpenAIProviderData): JsonValue {
  const entry: { [key: string]: JsonValue } = { model: data.model, api: data.api };
  if (data.finishReason !== undefined) entry.finishReason = data.finishReason;
  if (data.status !== undefined) entry.status = data.status;
  if (data.incompleteReason !== undefined && data.incompleteReason !== null)
    entry.incompleteReason = data.incompleteReason;
  if (data.reasoning && data.reasoning.length > 0) entry.reasoning = [...data.reasoning];
  return { [provider]: entry };
}

/**
 * The reasoning items of an assistant message to send back: those this adapter recorded under the same provider key,
 * for the same model, from the Responses API, that carry `encrypted_content` (an item without it cannot be replayed
 * with `store: false`). Another provider's data, another model's items and anything malformed are ignored.
 */
export function reasoningItemsFor(message: AssistantMessage, provider: string, model: string): ReasoningItemData[] {
  const data = message.providerData;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const mine = (data as Record<string, JsonValue>)[provider];
  if (typeof mine !== 'object' || mine === null || Array.isArray(mine)) return [];
  if (mine.model !== model || mine.api !== 'responses' || !Array.isArray(mine.reasoning)) return [];
  return mine.reasoning.filter(isReplayableReasoning);
}
