import type { ModelResponse, ToolCall, Usage } from '@bridle/protocol';
import type { FakeRaw } from './fake-provider-script';
import type { SseEvent } from './fake-provider-server';

/** Splits text into word-sized deltas (like `scriptedModel`'s stream), so clients see several deltas. */
export function textDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** The wire form of tool arguments: a string is sent verbatim (so tests can send malformed JSON), else JSON. */
export function argumentsText(call: ToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
}

/** Splits an arguments string into a few pieces, as providers stream them. */
export function argumentDeltas(text: string): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** The response's usage, or a deterministic estimate (4 characters a token) so usage is never missing. */
export function usageOf(response: ModelResponse, requestBody: unknown): Usage {
  if (response.usage) return response.usage;
  const output = response.content.length + (response.toolCalls ?? []).reduce((n, c) => n + argumentsText(c).length, 0);
  return {
    inputTokens: Math.ceil(JSON.stringify(requestBody ?? '').length / 4),
    outputTokens: Math.ceil(output / 4),
  };
}

/** A deterministic id like `resp_fake0003` (prefix, call index, optional part index). */
export function fakeId(prefix: string, callIndex: number, part?: number): string {
  const base = `${prefix}_fake${String(callIndex + 1).padStart(4, '0')}`;
  return part === undefined ? base : `${base}_${part}`;
}

/** The model name the client asked for, or `fake-model`. */
export function requestedModel(body: unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : 'fake-model';
}

/** Unix time in seconds, as the APIs report it. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Runs `lists` round-robin: the first item of each, then the second of each, and so on. Used to interleave the
 * argument deltas of several tool calls.
 */
export function roundRobin<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i] as T);
  return out;
}

/**
 * A raw step as the server sends it: its `json` body, or its `events` when the request streams (`named`: each gets
 * an `event:` line from its `type`, as Anthropic and the Responses API send). Throws when the step has no form for
 * the request, so the test sees a 500 that says which is missing.
 */
export function renderRaw(step: FakeRaw, stream: boolean, named: boolean): { json: unknown } | { events: SseEvent[] } {
  if (!stream) {
    if (step.json === undefined) throw new Error('the raw step has no json for a request that does not stream');
    return { json: step.json };
  }
  if (step.events === undefined) throw new Error('the raw step has no events for a streaming request');
  return {
    events: step.events.map((data) => {
      const type = (data as { type?: unknown } | null)?.type;
      return named && typeof type === 'string' ? { event: type, data } : { data };
    }),
  };
}
