// Black-box conformance to SPEC "@bridle/context": boundToolResult and selectContext, through the public API.
import { BridleError, ContextLimitError, type Message, TranscriptError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { boundToolResult, selectContext } from '../src/index';

/** Splits a bounded result into the kept head, the marker and the kept tail of an `a…az…z` content. */
function parts(result: string) {
  const head = /^a*/.exec(result)?.[0] ?? '';
  const tail = /z*$/.exec(result)?.[0] ?? '';
  return { head, tail, marker: result.slice(head.length, result.length - tail.length) };
}

describe('SPEC: boundToolResult(content, limit)', () => {
  it('is unchanged when it fits (up to exactly limit characters)', () => {
    expect(boundToolResult('hello', 5)).toBe('hello');
    expect(boundToolResult('hello', 100)).toBe('hello');
    expect(boundToolResult('', 1)).toBe('');
  });

  it('keeps the head and the tail with a marker saying how many characters were omitted', () => {
    const content = `${'a'.repeat(5000)}${'z'.repeat(5000)}`;
    const result = boundToolResult(content, 1000);
    const { head, tail, marker } = parts(result);
    expect(head.length).toBeGreaterThan(400);
    expect(tail.length).toBeGreaterThan(400);
    const omitted = content.length - head.length - tail.length;
    expect(marker).toContain(String(omitted));
    expect(marker).toMatch(/omitted/);
  });

  it('is at most limit characters for every limit from 1 to 300 (and the marker count is exact)', () => {
    const content = `${'a'.repeat(250)}${'z'.repeat(250)}`;
    for (let limit = 1; limit <= 300; limit++) {
      const result = boundToolResult(content, limit);
      expect(result.length).toBeLessThanOrEqual(limit);
      const { head, tail, marker } = parts(result);
      if (marker === '') continue; // too small a limit for a marker: a plain cut
      const count = /\d+/.exec(marker)?.[0];
      expect(Number(count)).toBe(content.length - head.length - tail.length);
      expect(head.length).toBeGreaterThan(0);
      expect(tail.length).toBeGreaterThan(0);
    }
  });

  it('rejects a limit that is not a positive integer with a BridleError', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => boundToolResult('abc', limit)).toThrow(BridleError);
  });
});

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });
const size = (messages: readonly Message[]) => JSON.stringify(messages).length;

/** One assistant message with a batch of `n` tool calls and their results (a single group). */
function batch(id: string, n: number, resultSize = 10): Message[] {
  const calls = Array.from({ length: n }, (_, i) => ({ id: `${id}-${i}`, name: 'tool', arguments: {} }));
  return [
    { role: 'assistant', content: '', toolCalls: calls },
    ...calls.map(
      (call): Message => ({
        role: 'tool',
        callId: call.id,
        name: 'tool',
        content: 'r'.repeat(resultSize),
        isError: false,
      }),
    ),
  ];
}

describe('SPEC: selectContext(messages, maxChars)', () => {
  const first = user('first question');

  it('returns everything when the whole transcript fits, the bound being JSON.stringify length', () => {
    const messages = [first, assistant('a1'), user('q2'), assistant('a2')];
    expect(selectContext(messages, size(messages))).toEqual(messages);
  });

  it('one character less drops the oldest group after the first message', () => {
    const messages = [first, assistant('a1'), user('q2'), assistant('a2')];
    expect(selectContext(messages, size(messages) - 1)).toEqual([first, user('q2'), assistant('a2')]);
  });

  it('keeps the first user message plus as many of the newest groups as fit (a contiguous newest part)', () => {
    const big = assistant('B'.repeat(500));
    const messages = [first, assistant('small old'), big, user('q3'), assistant('a3')];
    const budget = size([first, user('q3'), assistant('a3')]) + size([assistant('small old')]);
    // "small old" would fit on its own, but the newer big group does not: older groups are never taken
    // past a newer one that was left out (the selection would otherwise skip history silently).
    expect(selectContext(messages, budget)).toEqual([first, user('q3'), assistant('a3')]);
  });

  it('never splits an assistant message from its tool batch', () => {
    const group = batch('b', 3);
    const messages = [first, assistant('old'), ...group, user('q'), assistant('a')];
    const withoutGroup = [first, user('q'), assistant('a')];
    // A budget one short of the whole group leaves all of it out.
    const selected = selectContext(messages, size([...withoutGroup, ...group]) - 1);
    expect(selected).toEqual(withoutGroup);
    // Exactly enough: all of it is in.
    expect(selectContext(messages, size([first, ...group, user('q'), assistant('a')]))).toEqual([
      first,
      ...group,
      user('q'),
      assistant('a'),
    ]);
  });

  it('the selection is within maxChars and a valid transcript for every budget', () => {
    const messages = [first, ...batch('x', 2), assistant('a'), user('q'), ...batch('y', 1, 50), assistant('end')];
    const minimum = size([first, assistant('end')]);
    for (let maxChars = minimum; maxChars <= size(messages); maxChars += 7) {
      const selected = selectContext(messages, maxChars);
      expect(size(selected)).toBeLessThanOrEqual(maxChars);
      expect(selected[0]).toEqual(first);
      expect(selected.at(-1)).toEqual(assistant('end'));
    }
  });

  it('throws ContextLimitError (code context_limit) when the first message plus the newest group do not fit', () => {
    const messages = [first, ...batch('b', 2, 400)];
    const error = (() => {
      try {
        selectContext(messages, size(messages) - 1);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ContextLimitError);
    expect((error as ContextLimitError).code).toBe('context_limit');
  });

  it('throws ContextLimitError when even the first message alone does not fit', () => {
    expect(() => selectContext([user('x'.repeat(100))], 10)).toThrow(ContextLimitError);
  });

  it('throws TranscriptError on an invalid transcript', () => {
    const invalid: unknown[][] = [
      [assistant('first')],
      [first, { role: 'tool', callId: 'c', name: 't', content: '', isError: false }],
      [
        first,
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', arguments: {} }] },
        user('no result'),
      ],
    ];
    for (const messages of invalid) expect(() => selectContext(messages as Message[], 10_000)).toThrow(TranscriptError);
  });

  it('never mutates its input', () => {
    const messages = [first, ...batch('b', 2), assistant('a')];
    const copy = structuredClone(messages);
    selectContext(messages, size(messages) - 1);
    expect(messages).toEqual(copy);
  });
});
