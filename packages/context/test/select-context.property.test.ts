import { ContextLimitError, type Message } from '@bridle/protocol';
import { expectValidTranscript, seededRandom } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { selectContext } from '../src/select-context';
import { selectContextByTokens } from '../src/select-context-by-tokens';
import { appendRandomGroup, groupStarts, randomTranscript } from './random-transcript.test-helper';

const size = (messages: readonly Message[]) => JSON.stringify(messages).length;

/** The expected selection, computed the slow, obvious way: re-serialize every candidate tail. */
function reference(
  messages: readonly Message[],
  max: number,
  measure: (selection: Message[]) => number,
): Message[] | 'limit' {
  const first = messages[0] as Message;
  const starts = groupStarts(messages);
  if (starts.length === 0) return measure([first]) <= max ? [first] : 'limit';
  let best: Message[] | 'limit' = 'limit';
  // Tails from the newest group backward; the first tail that does not fit ends the search.
  for (let position = starts.length - 1; position >= 0; position--) {
    const candidate = [first, ...messages.slice(starts[position])];
    if (measure(candidate) > max) break;
    best = candidate;
  }
  return best;
}

function outcome(select: () => Message[]): Message[] | 'limit' {
  try {
    return select();
  } catch (error) {
    if (ContextLimitError.isInstance(error)) return 'limit';
    throw error;
  }
}

function expectSameObjects(actual: Message[] | 'limit', expected: Message[] | 'limit'): void {
  expect(actual === 'limit' ? 'limit' : actual.length).toEqual(expected === 'limit' ? 'limit' : expected.length);
  if (actual !== 'limit' && expected !== 'limit')
    for (const [index, message] of actual.entries()) expect(message).toBe(expected[index]);
}

describe('selectContext invariants over random transcripts', () => {
  it('matches the obvious quadratic reference exactly (seed 20250131, 400 transcripts)', () => {
    const random = seededRandom(20250131);
    for (let round = 0; round < 400; round++) {
      const messages = randomTranscript(random, random.int(0, 25));
      const full = size(messages);
      const max = random.bool(0.1) ? full : random.int(20, full + 50);
      const actual = outcome(() => selectContext(messages, max));
      expectSameObjects(actual, reference(messages, max, size));
      if (actual !== 'limit') {
        expectValidTranscript(actual);
        expect(size(actual)).toBeLessThanOrEqual(max);
        expect(actual[0]).toBe(messages[0]);
        expect(actual[1]?.role).not.toBe('tool');
      }
    }
  });

  it('gives the same answers on one growing array as on fresh copies (seed 99, 40 histories)', () => {
    const random = seededRandom(99);
    for (let round = 0; round < 40; round++) {
      const messages = randomTranscript(random, 0);
      const serial = { next: 0 };
      const max = random.int(100, 3000);
      for (let step = 0; step < 30; step++) {
        appendRandomGroup(random, messages, serial);
        const growing = outcome(() => selectContext(messages, max));
        expectSameObjects(
          growing,
          outcome(() => selectContext([...messages], max)),
        );
        expectSameObjects(growing, reference(messages, max, size));
      }
    }
  });

  it('selectContextByTokens matches its reference too (seed 5, 300 transcripts)', () => {
    const random = seededRandom(5);
    const counter = (text: string) => Math.ceil(text.length / 3);
    const tokens = (selection: Message[]) =>
      selection.reduce((sum, message) => sum + counter(JSON.stringify(message)), 0);
    for (let round = 0; round < 300; round++) {
      const messages = randomTranscript(random, random.int(0, 20));
      const max = random.int(5, tokens(messages) + 20);
      const actual = outcome(() => selectContextByTokens(messages, { maxTokens: max, counter }));
      expectSameObjects(actual, reference(messages, max, tokens));
      if (actual !== 'limit') expectValidTranscript(actual);
    }
  });
});
