import { type RunAgentOptions, runAgent } from '@bridle/core';
import { ConfigError, describeValue } from '@bridle/protocol';
import type { BatchAgentOptions, BatchItem, BatchRunFunction } from './types';

type Observer = Extract<NonNullable<RunAgentOptions['onEvent']>, (...args: never[]) => unknown>;

const ITEM_OVERRIDES = ['system', 'maxSteps', 'maxToolCalls', 'timeoutMs'] as const;

/** The part of an item that `runAgent` takes; throws `ConfigError` naming the item when it has neither input. */
function itemInput(item: BatchItem, index: number, id: string): Record<string, unknown> {
  const where = `batch item ${index}${id === String(index) ? '' : ` (id ${JSON.stringify(id)})`}`;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new ConfigError(`${where}: expected an object like {"prompt": "..."}, got ${describeValue(item)}.`);
  }
  const hasPrompt = typeof item.prompt === 'string';
  const hasMessages = Array.isArray(item.messages);
  if (hasPrompt === hasMessages) {
    throw new ConfigError(
      `${where}: needs exactly one of a string "prompt" or a "messages" array; ` +
        `got prompt ${describeValue(item.prompt)} and messages ${describeValue(item.messages)}.`,
    );
  }
  const input: Record<string, unknown> = hasPrompt ? { prompt: item.prompt } : { messages: item.messages };
  for (const key of ITEM_OVERRIDES) if (item[key] !== undefined) input[key] = item[key];
  return input;
}

/**
 * The default run function: one `runAgent` call per attempt with the shared `agent` options, the item's
 * input and overrides, the batch signal, and events forwarded to both `agent.onEvent` and the batch.
 */
export function agentRun(agent: BatchAgentOptions): BatchRunFunction<BatchItem> {
  const own = agent.onEvent;
  const observers: Observer[] = own === undefined ? [] : typeof own === 'function' ? [own as Observer] : [...own];
  return async (item, context) => {
    const input = itemInput(item, context.index, context.id);
    const onEvent = [...observers, context.onEvent];
    return runAgent({ ...agent, ...input, signal: context.signal, onEvent } as RunAgentOptions);
  };
}
