import { ConfigError, describeValue } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import type { RunBatchOptions } from './types';

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
  integerOption('concurrency', options.concurrency, undefined, { min: 1, where: 'runBatch' });
  integerOption('retry.maxRetries', options.retry?.maxRetries, undefined, { min: 0, where: 'runBatch' });
  integerOption('retry.baseDelayMs', options.retry?.baseDelayMs, undefined, { min: 0, where: 'runBatch' });
  integerOption('retry.maxDelayMs', options.retry?.maxDelayMs, undefined, { min: 0, where: 'runBatch' });
  if (options.readOnlyTools !== undefined && !Array.isArray(options.readOnlyTools)) {
    throw new ConfigError(
      `runBatch: readOnlyTools must be an array of tool names, got ${describeValue(options.readOnlyTools)}.`,
    );
  }
}
