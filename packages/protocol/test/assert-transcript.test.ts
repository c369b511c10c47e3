import { describe, expect, it } from 'vitest';
import { assertTranscript, type Message, TranscriptError } from '../src/index';

const user = (content = 'hi'): Message => ({ role: 'user', content });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 't', arguments: {} })),
});
const result = (callId: string): Message => ({ role: 'tool', callId, name: 't', content: 'ok', isError: false });
const reply = (content = 'done'): Message => ({ role: 'assistant', content });

function problem(messages: unknown[]): string {
  try {
    assertTranscript(messages);
  } catch (error) {
    expect(TranscriptError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected assertTranscript to throw');
}

describe('assertTranscript', () => {
  it('accepts valid transcripts', () => {
    const valid: Message[][] = [
      [user()],
      [user(), reply()],
      [user(), calls('a'), result('a'), reply()],
      [user(), calls('a', 'b', 'c'), result('c'), result('a'), result('b')],
      [user(), calls('a'), result('a'), calls('a'), result('a'), user('again'), reply()],
      [user(), { role: 'assistant', content: 'x', toolCalls: [] }, user()],
      [user(), user(), reply(), reply()],
    ];
    for (const messages of valid) expect(() => assertTranscript(messages)).not.toThrow();
  });

  it('requires a first user message', () => {
    expect(problem([])).toContain('must start with a user message, but it is empty');
    expect(problem([reply()])).toContain('messages[0]: a transcript must start with a user message, not "assistant"');
    expect(problem([result('a')])).toContain('not "tool"');
  });

  it('requires every call of a batch answered directly after it', () => {
    expect(problem([user(), calls('a', 'b'), result('a')])).toContain('missing results for b');
    expect(problem([user(), calls('a'), reply()])).toContain(
      'messages[2]: expected a tool result for a, got a assistant message',
    );
    expect(problem([user(), calls('a', 'b'), result('a'), user(), result('b')])).toContain(
      'expected a tool result for b',
    );
    expect(problem([user(), calls('a'), result('x')])).toContain('tool result for "x" answers no open call');
    expect(problem([user(), calls('a', 'b'), result('a'), result('a')])).toContain(
      'tool result for "a" answers no open call',
    );
  });

  it('refuses tool messages outside a batch', () => {
    expect(problem([user(), result('a')])).toContain('messages[1]: tool message for call "a" does not answer');
    expect(problem([user(), calls('a'), result('a'), result('a')])).toContain('messages[3]');
  });

  it('refuses duplicate call ids within a batch', () => {
    expect(problem([user(), calls('a', 'a'), result('a'), result('a')])).toContain(
      'tool call id "a" appears twice in one batch',
    );
  });

  it('refuses malformed messages', () => {
    expect(problem([null])).toContain('expected a message object, got null');
    expect(problem([{ role: 'system', content: 'x' }])).toContain(
      'role must be "user", "assistant" or "tool", got "system"',
    );
    expect(problem([{ role: 'user' }])).toContain('content must be a string');
    expect(problem([user(), { role: 'assistant', content: '', toolCalls: 'a' }])).toContain(
      'toolCalls must be an array',
    );
    expect(problem([user(), calls('a'), { role: 'tool', callId: 'a', content: 'x' }])).toContain('boolean isError');
    expect(problem('nope' as unknown as unknown[])).toContain('must be an array');
  });

  it('is linear: a 200,000-message transcript is checked quickly without recursion', () => {
    const messages: Message[] = [user()];
    for (let i = 0; i < 50_000; i++) messages.push(calls(`c${i}`), result(`c${i}`), reply(), user());
    expect(() => assertTranscript(messages)).not.toThrow();
  });
});
