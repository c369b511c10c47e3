import { ConfigError, describeValue } from '@bridle/protocol';

/** What a model's tokens cost, in US dollars per million tokens. */
export interface ModelPrice {
  /** Input tokens not served from (or written to) the prompt cache. */
  inputPerMTok: number;
  /** Output tokens (reasoning tokens included). */
  outputPerMTok: number;
  /** Input tokens read from the prompt cache; default `inputPerMTok`. */
  cacheReadPerMTok?: number;
  /** Input tokens written to the prompt cache; default `inputPerMTok`. */
  cacheWritePerMTok?: number;
  /** Where the price was read (a pricing page URL). */
  source?: string;
  /** When it was read there, `YYYY-MM-DD`. */
  date?: string;
}

/** An entry of {@link modelPrices}: always with its `source` and `date`. */
export type PublishedModelPrice = ModelPrice & { source: string; date: string };

const OPENAI = 'https://openai.com/api/pricing/';
const ANTHROPIC = 'https://platform.claude.com/docs/en/about-claude/pricing';
const OPENAI_DATE = '2025-08-07';
const ANTHROPIC_DATE = '2026-03-21';

function openaiPrice(input: number, cachedInput: number, output: number): PublishedModelPrice {
  // OpenAI bills cache writes as plain input; only cached reads are cheaper.
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: cachedInput,
    source: OPENAI,
    date: OPENAI_DATE,
  };
}

function anthropicPrice(input: number, output: number, cacheWrite: number, cacheRead: number): PublishedModelPrice {
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: cacheRead,
    cacheWritePerMTok: cacheWrite,
    source: ANTHROPIC,
    date: ANTHROPIC_DATE,
  };
}

/**
 * Prices of common models by Bridle model id, per million tokens, each with the pricing page it was read from and
 * the date. Anthropic cache writes are the 5-minute ones (what automatic breakpoints use); prices are the standard
 * tier (no batch, no priority, no long-context surcharge). Prices change: check the source, and pass your own to
 * `resolveModel(id, { prices })`, which adds or overrides entries. A dated Anthropic id (`claude-sonnet-4-5-20250929`)
 * falls back to its undated entry.
 */
export const modelPrices: Readonly<Record<string, PublishedModelPrice>> = Object.freeze({
  'openai:gpt-4o-mini': openaiPrice(0.15, 0.075, 0.6),
  'openai:gpt-4o': openaiPrice(2.5, 1.25, 10),
  'openai:gpt-4.1': openaiPrice(2, 0.5, 8),
  'openai:gpt-4.1-mini': openaiPrice(0.4, 0.1, 1.6),
  'openai:gpt-4.1-nano': openaiPrice(0.1, 0.025, 0.4),
  'openai:gpt-5': openaiPrice(1.25, 0.125, 10),
  'openai:gpt-5-mini': openaiPrice(0.25, 0.025, 2),
  'openai:gpt-5-nano': openaiPrice(0.05, 0.005, 0.4),
  'openai:o3': openaiPrice(2, 0.5, 8),
  'openai:o4-mini': openaiPrice(1.1, 0.275, 4.4),
  'anthropic:claude-sonnet-4-6': anthropicPrice(3, 15, 3.75, 0.3),
  'anthropic:claude-sonnet-4-5': anthropicPrice(3, 15, 3.75, 0.3),
  'anthropic:claude-sonnet-4-0': anthropicPrice(3, 15, 3.75, 0.3),
  'anthropic:claude-sonnet-4': anthropicPrice(3, 15, 3.75, 0.3),
  'anthropic:claude-opus-4-6': anthropicPrice(5, 25, 6.25, 0.5),
  'anthropic:claude-opus-4-5': anthropicPrice(5, 25, 6.25, 0.5),
  'anthropic:claude-opus-4-1': anthropicPrice(15, 75, 18.75, 1.5),
  'anthropic:claude-haiku-4-5': anthropicPrice(1, 5, 1.25, 0.1),
  'anthropic:claude-3-5-haiku': anthropicPrice(0.8, 4, 1, 0.08),
});

const PRICE_FIELDS = ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok'] as const;

/** Checks a price entry: every price a finite number >= 0 (the two first ones required). Throws `ConfigError` naming it. */
export function checkModelPrice(id: string, price: unknown): asserts price is ModelPrice {
  if (typeof price !== 'object' || price === null) {
    throw new ConfigError(
      `prices[${JSON.stringify(id)}] must be an object like { inputPerMTok: 3, outputPerMTok: 15 }, got ${describeValue(price)}.`,
    );
  }
  for (const field of PRICE_FIELDS) {
    const value = (price as Record<string, unknown>)[field];
    const optional = field === 'cacheReadPerMTok' || field === 'cacheWritePerMTok';
    if (value === undefined && optional) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(
        `prices[${JSON.stringify(id)}].${field} must be a finite number of US dollars per million tokens, >= 0; got ${describeValue(value)}.`,
      );
    }
  }
}

/** The price of a model id in `table`: its own entry, else (for a dated Anthropic id) the undated one. */
export function priceOf(id: string, table: Readonly<Record<string, ModelPrice>>): ModelPrice | undefined {
  if (Object.hasOwn(table, id)) return table[id];
  const undated = id.replace(/^(anthropic:.+)-\d{8}$/, '$1');
  return undated !== id && Object.hasOwn(table, undated) ? table[undated] : undefined;
}
