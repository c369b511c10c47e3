import { ConfigError, ContextLimitError, type Message, TranscriptError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { selectContext } from '../src/select-context';

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string, ...ids: string[]): Message =>
  ids.length === 0
    ? { role: 'assistant', content }
    : { role: 'assistant', content, toolCalls: ids.map((id) => ({ id, name: 'echo', arguments: { id } })) };
const result = (callId: string, content = 'ok'): Message => ({
  role: 'tool',
  callId,
  name: 'echo',
  content,
  isError: false,
});
const size = (messages: readonly Message[]) => JSON.stringify(messages).length;

function transcript(): Message[] {
  return [
    user('task'),
    assistant('', 'c1', 'c2'),
    result('c1'),
    result('c2', 'two'),
    assistant('thinking'),
    user('more'),
    assistant('', 'c3'),
    result('c3', 'three'),
  ];
}

describe('selectContext', () => {
  it('returns everything (the same objects) when it all fits', () => {
    const messages = transcript();
    const selected = selectContext(messages, size(messages));
    expect(selected).toEqual(messages);
    expect(selected).not.toBe(messages);
    for (const [index, message] of selected.entries()) expect(message).toBe(messages[index]);
  });

  it('drops the oldest group at one character under the full size', () => {
    const messages = transcript();
    const selected = selectContext(messages, size(messages) - 1);
    expect(selected).toEqual([messages[0], ...messages.slice(4)]);
  });

  it('is tight: the exact size of a selection fits, one less does not', () => {
    const messages = transcript();
    const tail = [messages[0] as Message, ...messages.slice(5)];
    expect(selectContext(messages, size(tail))).toEqual(tail);
    expect(selectContext(messages, size(tail) - 1)).toEqual([messages[0], ...messages.slice(6)]);
  });

  it('keeps the newest batch whole and never splits one', () => {
    const messages = transcript();
    const minimal = [messages[0] as Message, ...messages.slice(6)];
    expect(selectContext(messages, size(minimal))).toEqual(minimal);
    for (let max = size(minimal); max <= size(messages); max++) {
      const selected = selectContext(messages, max);
      expect(size(selected)).toBeLessThanOrEqual(max);
      // A selection starts after the first message at a group start: never at a tool message.
      expect(selected[1]?.role).not.toBe('tool');
    }
  });

  it('throws ContextLimitError when the first message plus the newest group do not fit', () => {
    const messages = transcript();
    const minimal = [messages[0] as Message, ...messages.slice(6)];
    const attempt = () => selectContext(messages, size(minimal) - 1);
    expect(attempt).toThrow(ContextLimitError);
    expect(attempt).toThrow(
      `The context does not fit: the first message (32 characters as JSON) plus the newest group (messages[6..7], 174 characters) need ${size(minimal)} characters with brackets and commas, over maxChars ${size(minimal) - 1}. Raise the context limit (maxContextChars) to at least ${size(minimal)}, or bound tool results lower (maxToolResultChars).`,
    );
    try {
      attempt();
    } catch (error) {
      expect((error as ContextLimitError).code).toBe('context_limit');
    }
  });

  it('handles a transcript of one message', () => {
    const messages = [user('hi')];
    expect(selectContext(messages, size(messages))).toEqual(messages);
    expect(() => selectContext(messages, size(messages) - 1)).toThrow(
      'The context does not fit: the first message alone is 32 characters as JSON, over maxChars 31. Raise the context limit (maxContextChars) to at least 32, or shorten the first message.',
    );
  });

  it('keeps everything with Infinity', () => {
    const messages = transcript();
    expect(selectContext(messages, Infinity)).toEqual(messages);
  });

  it('rejects invalid transcripts and limits', () => {
    expect(() => selectContext([], 100)).toThrow(TranscriptError);
    expect(() => selectContext([assistant('x')], 100)).toThrow(TranscriptError);
    expect(() => selectContext([user('x'), assistant('', 'c1')], 100)).toThrow(
      'Invalid transcript at messages[1]: the batch of 1 tool calls is missing results for c1',
    );
    expect(() => selectContext([user('x'), result('c1')], 100)).toThrow(TranscriptError);
    expect(() => selectContext(transcript(), 0)).toThrow(ConfigError);
    expect(() => selectContext(transcript(), 10.5)).toThrow(
      'maxChars must be a positive integer or Infinity, got number 10.5',
    );
  });

  it('names the message that cannot be serialized', () => {
    const messages: Message[] = [
      user('x'),
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'n', arguments: 1n }] },
      result('c'),
    ];
    expect(() => selectContext(messages, 1000)).toThrow(
      /^Invalid transcript at messages\[1\]: the message cannot be serialized to JSON/,
    );
  });
});

describe('selectContext on a growing array', () => {
  it('gives the same answers as a fresh copy while the array grows', () => {
    const messages: Message[] = [user('start')];
    for (let step = 0; step < 60; step++) {
      if (step % 3 === 0)
        messages.push(
          assistant(`step ${step}`, `a${step}`, `b${step}`),
          result(`a${step}`, 'x'.repeat(step)),
          result(`b${step}`),
        );
      else if (step % 3 === 1) messages.push(assistant(`plain ${step}`));
      else messages.push(user(`user ${step}`));
      for (const max of [400, 1000, 5000]) {
        let viaGrowing: Message[] | Error;
        let viaCopy: Message[] | Error;
        try {
          viaGrowing = selectContext(messages, max);
        } catch (error) {
          viaGrowing = error as Error;
        }
        try {
          viaCopy = selectContext([...messages], max);
        } catch (error) {
          viaCopy = error as Error;
        }
        expect(viaGrowing).toEqual(viaCopy);
      }
    }
  });

  it('still catches an invalid message appended after a valid prefix, with its real index', () => {
    const messages = transcript();
    selectContext(messages, 10_000);
    messages.push(result('c3'));
    expect(() => selectContext(messages, 10_000)).toThrow(
      'Invalid transcript at messages[8]: tool message for call "c3" does not answer the assistant message just before it',
    );
    messages.pop();
    messages.push(assistant('', 'c9'));
    expect(() => selectContext(messages, 10_000)).toThrow(
      'Invalid transcript at messages[8]: the batch of 1 tool calls is missing results for c9',
    );
    messages.push(result('c9'));
    expect(selectContext(messages, 10_000)).toHaveLength(10);
  });

  it('checks the whole array again when it shrank or its end changed', () => {
    const messages = transcript();
    selectContext(messages, 10_000);
    messages.splice(2, 1); // removes a result from the first batch
    expect(() => selectContext(messages, 10_000)).toThrow(TranscriptError);
    const other = transcript();
    selectContext(other, 10_000);
    other[other.length - 1] = user('replaced'); // the batch at [6] loses its result
    expect(() => selectContext(other, 10_000)).toThrow(
      'Invalid transcript at messages[7]: expected a tool result for c3, got a user message',
    );
  });

  it('checks new arrays holding the same message objects by their new part, and still catches edits', () => {
    const history = transcript();
    selectContext([...history], 10_000);
    const extended = [...history, assistant('', 'c9'), result('c9')];
    expect(selectContext(extended, 10_000)).toEqual(extended);
    expect(() => selectContext([...extended, result('c9')], 10_000)).toThrow(
      'Invalid transcript at messages[10]: tool message for call "c9" does not answer the assistant message just before it',
    );
    // Same first message, a different message in the middle: the whole array is checked.
    const edited = [...extended];
    edited[2] = result('zz');
    expect(() => selectContext(edited, 10_000)).toThrow(
      'Invalid transcript at messages[2]: tool result for "zz" answers no open call of the batch at messages[1]',
    );
    // A shorter array with the same first message (a fork of the conversation).
    expect(selectContext(history.slice(0, 5), 10_000)).toEqual(history.slice(0, 5));
    expect(() => selectContext([...history.slice(0, 2), user('x')], 10_000)).toThrow(TranscriptError);
  });
});
