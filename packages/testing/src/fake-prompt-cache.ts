import { createHash } from 'node:crypto';

type Body = Record<string, unknown>;

/** How a fake prompt cache split one request's input tokens. */
export interface FakeCacheUsage {
  /** Tokens neither read from nor written to the cache (Anthropic's `input_tokens`). */
  uncached: number;
  read: number;
  write: number;
}

interface Segment {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** How far back from a breakpoint the API looks for an earlier cache entry, in blocks. */
const LOOKBACK_BLOCKS = 20;

function withoutCacheControl(value: unknown): { json: string; breakpoint: boolean } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { json: JSON.stringify(value), breakpoint: false };
  }
  const { cache_control, ...rest } = value as Body;
  return { json: JSON.stringify(rest), breakpoint: cache_control !== undefined && cache_control !== null };
}

/** 4 characters a token, like the fake servers' usage estimates. */
function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The request as cacheable blocks in the API's prefix order: tools, then system, then each message's blocks. */
function segments(body: Body): Segment[] {
  const out: Segment[] = [];
  const add = (where: string, value: unknown) => {
    const { json, breakpoint } = withoutCacheControl(value);
    out.push({ key: `${where}:${json}`, tokens: tokensOf(json), breakpoint });
  };
  for (const tool of (body.tools as unknown[] | undefined) ?? []) add('tool', tool);
  const system = body.system;
  if (typeof system === 'string') add('system', { type: 'text', text: system });
  else if (Array.isArray(system)) for (const block of system) add('system', block);
  ((body.messages as Body[] | undefined) ?? []).forEach((message, index) => {
    const content = message?.content;
    const where = `${index}:${String(message?.role)}`;
    if (typeof content === 'string') add(where, { type: 'text', text: content });
    else if (Array.isArray(content)) for (const block of content) add(where, block);
  });
  return out;
}

/**
 * A prompt cache that behaves like Anthropic's: a request writes the prefix ending at each of its `cache_control`
 * breakpoints, and reads the longest prefix an earlier request wrote that ends at a breakpoint or up to 20 blocks
 * before one. Tokens are estimated at 4 characters each. The model, `thinking` and `tool_choice` are part of every
 * key, so changing them misses the cache, as it does for real. Minimum cacheable lengths and expiry are not
 * simulated.
 */
export class FakePromptCache {
  readonly #entries = new Set<string>();

  /** Accounts one request: what it read and wrote, and stores its breakpoints' prefixes. */
  account(body: Body): FakeCacheUsage {
    const parts = segments(body);
    let hash = createHash('sha256')
      .update(JSON.stringify([body.model, body.thinking ?? null, body.tool_choice ?? null]))
      .digest('hex');
    const hashes: string[] = [];
    const totals: number[] = [];
    let total = 0;
    for (const part of parts) {
      hash = createHash('sha256').update(hash).update(part.key).digest('hex');
      hashes.push(hash);
      total += part.tokens;
      totals.push(total);
    }
    let read = 0;
    let lastBreakpoint = -1;
    parts.forEach((part, index) => {
      if (!part.breakpoint) return;
      lastBreakpoint = index;
      for (let back = index; back >= 0 && back > index - LOOKBACK_BLOCKS; back--) {
        if (this.#entries.has(hashes[back] as string)) {
          read = Math.max(read, totals[back] as number);
          break;
        }
      }
    });
    const cached = lastBreakpoint < 0 ? 0 : (totals[lastBreakpoint] as number);
    const write = Math.max(0, cached - read);
    parts.forEach((part, index) => {
      if (part.breakpoint) this.#entries.add(hashes[index] as string);
    });
    return { uncached: total - read - write, read, write };
  }
}
