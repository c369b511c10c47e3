import { ConfigError, describeValue } from '@bridle/protocol';
import type { BatchAgentOptions, BatchItem, BatchRunFunction, BatchRunOutcome } from './types';

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
  const own = agent.onEvent as ((event: never) => void) | undefined;
  return async (item, context) => {
    const input = itemInput(item, context.index, context.id);
    // Loaded on first use so that custom `run` functions never pull in the agent loop.
    const { runAgent } = await import('@bridle/core');
    const onEvent = own
      ? (event: never) => {
          own(event);
          context.onEvent(event);
        }
      : context.onEvent;
    return (await runAgent({ ...agent, ...input, signal: context.signal, onEvent } as never)) as BatchRunOutcome;
  };
}
