import { describe, expect, it } from 'vitest';
import { expectValidTranscript } from '../src/index';

describe('expectValidTranscript', () => {
  it('passes valid transcripts and explains invalid ones with their roles', () => {
    expect(() => expectValidTranscript([{ role: 'user', content: 'hi' }])).not.toThrow();
    expect(() =>
      expectValidTranscript([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', arguments: {} }] },
      ]),
    ).toThrow(/missing results for a\nroles: user assistant/);
  });
});
