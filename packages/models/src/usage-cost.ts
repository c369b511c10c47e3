import type { Usage } from '@bridle/protocol';
import type { ModelPrice } from './model-prices';

/**
 * What `usage` costs at `price`, in US dollars: input tokens outside the cache at `inputPerMTok`, cache reads at
 * `cacheReadPerMTok` and cache writes at `cacheWritePerMTok` (each defaulting to `inputPerMTok`), output tokens at
 * `outputPerMTok`. `inputTokens` counts the cached parts too (Bridle's usage rule), so they are taken out of it first.
 * Rounded to 1e-12 dollars so sums stay readable. Never throws.
 */
export function usageCost(usage: Usage, price: ModelPrice): number {
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - read - write);
  const dollars =
    plain * price.inputPerMTok +
    read * (price.cacheReadPerMTok ?? price.inputPerMTok) +
    write * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    usage.outputTokens * price.outputPerMTok;
  return Math.round((dollars / 1_000_000) * 1e12) / 1e12;
}
