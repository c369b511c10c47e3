/** The BullMQ queue every Bridle worker and producer uses. */
export const QUEUE_NAME = 'bridle-runs';

/** The default key prefix (`--queue-prefix` / `BRIDLE_QUEUE_PREFIX`); one per deployment sharing a Redis. */
export const DEFAULT_QUEUE_PREFIX = 'bridle';

const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** Checks a key prefix: 1 to 64 of `A-Z a-z 0-9 _ . -` (no `:`, which BullMQ uses as its separator). */
export function checkPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new TypeError(
      `Invalid queue prefix ${JSON.stringify(prefix)}: use 1 to 64 letters, digits, '_', '.' or '-' (e.g. "bridle" or "bridle-staging").`,
    );
  }
  return prefix;
}

/** Redis keys Bridle keeps beside BullMQ's, all under `<prefix>:bridle-runs:`. */
export function queueKeys(prefix: string) {
  const base = `${prefix}:${QUEUE_NAME}`;
  return {
    /** A Redis stream of one run's events (`follow`). */
    events: (runId: string) => `${base}:run-events:${runId}`,
    /** Model calls of one model id in the current window (sliding log). */
    rate: (modelId: string) => `${base}:rate:${modelId}`,
    /** Set while a provider's Retry-After holds calls to one model id. */
    pause: (modelId: string) => `${base}:pause:${modelId}`,
    /** The pub/sub channel of run signals (steering and cancel) for the deployment's workers. */
    signals: `${base}:run-signals`,
  };
}
