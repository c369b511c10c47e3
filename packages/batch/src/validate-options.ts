import { ConfigError, describeValue } from '@bridle/protocol';
import type { RunBatchOptions } from './types';

function checkInteger(value: unknown, name: string, least: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) {
    throw new ConfigError(
      `runBatch: ${name} must be an integer >= ${least}, got ${describeValue(value)}. Pass e.g. ${name}: ${Math.max(least, 1)}.`,
    );
  }
}

/** Throws `ConfigError` naming the first bad option of `runBatch` / `streamBatch`. */
export function validateBatchOptions(items: unknown, options: RunBatchOptions<unknown>): void {
  if (!Array.isArray(items)) {
    throw new ConfigError(`runBatch: items must be an array, got ${describeValue(items)}.`);
  }
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(
      `runBatch: options must be an object with \`agent\` or \`run\`, got ${describeValue(options)}.`,
    );
  }
  if (options.run !== undefined && typeof options.run !== 'function') {
    throw new ConfigError(
      `runBatch: run must be a function (item, context) => outcome, got ${describeValue(options.run)}.`,
    );
  }
  if (options.run === undefined) {
    const model = options.agent?.model as { generate?: unknown } | undefined;
    if (typeof model?.generate !== 'function') {
      throw new ConfigError(
        'runBatch: pass `agent: { model, ... }` (options for runAgent) or a custom `run` function; ' +
          `agent.model is ${describeValue(model)}.`,
      );
    }
  }
  checkInteger(options.concurrency, 'concurrency', 1);
  checkInteger(options.retry?.maxRetries, 'retry.maxRetries', 0);
  checkInteger(options.retry?.baseDelayMs, 'retry.baseDelayMs', 0);
  checkInteger(options.retry?.maxDelayMs, 'retry.maxDelayMs', 0);
  if (options.readOnlyTools !== undefined && !Array.isArray(options.readOnlyTools)) {
    throw new ConfigError(
      `runBatch: readOnlyTools must be an array of tool names, got ${describeValue(options.readOnlyTools)}.`,
    );
  }
}
