import { ConfigError, ContextLimitError, type Message, TranscriptError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../src/estimate-tokens';
import { selectContextByTokens } from '../src/select-context-by-tokens';

const messages: Message[] = [
  { role: 'user', content: 'task' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', arguments: {} }] },
  { role: 'tool', callId: 'c1', name: 'echo', content: 'ok', isError: false },
  { role: 'assistant', content: 'done' },
];
// A counter that makes each message cost a known amount: 10 tokens per message.
const ten = () => 10;

describe('estimateTokens', () => {
  it('counts about four ASCII characters per token and one per other character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('中文')).toBe(2);
    expect(estimateTokens('abcd中')).toBe(2);
    expect(estimateTokens('😀')).toBe(2);
  });
});

describe('selectContextByTokens', () => {
  it('selects the newest groups by token budget, batches whole', () => {
    expect(selectContextByTokens(messages, { maxTokens: 40, counter: ten })).toEqual(messages);
    expect(selectContextByTokens(messages, { maxTokens: 39, counter: ten })).toEqual([messages[0], messages[3]]);
    expect(selectContextByTokens(messages, { maxTokens: 20, counter: ten })).toEqual([messages[0], messages[3]]);
  });

  it('throws ContextLimitError when the first message and the newest group do not fit', () => {
    expect(() => selectContextByTokens(messages, { maxTokens: 19, counter: ten })).toThrow(ContextLimitError);
    expect(() => selectContextByTokens(messages, { maxTokens: 19, counter: ten })).toThrow(
      'The context does not fit: the first message (10 tokens) plus the newest group (messages[3], 10 tokens) need 20 tokens, over maxTokens 19. Raise the token budget to at least 20, or bound tool results lower.',
    );
    expect(() => selectContextByTokens(messages.slice(0, 3), { maxTokens: 29, counter: ten })).toThrow(
      'the newest group (messages[1..2], 20 tokens) need 30 tokens',
    );
    expect(() => selectContextByTokens(messages.slice(0, 1), { maxTokens: 9, counter: ten })).toThrow(
      'The context does not fit: the first message alone is 10 tokens, over maxTokens 9. Raise the token budget to at least 10, or shorten the first message.',
    );
  });

  it('uses estimateTokens on each message JSON by default', () => {
    const cost = messages.map((message) => estimateTokens(JSON.stringify(message)));
    const total = cost.reduce((sum, tokens) => sum + tokens, 0);
    expect(selectContextByTokens(messages, { maxTokens: total })).toEqual(messages);
    expect(selectContextByTokens(messages, { maxTokens: total - 1 })).toEqual([messages[0], messages[3]]);
  });

  it('counts each message once per counter', () => {
    const seen: string[] = [];
    const counter = (text: string) => {
      seen.push(text);
      return 1;
    };
    const history = [...messages];
    selectContextByTokens(history, { maxTokens: 100, counter });
    selectContextByTokens(history, { maxTokens: 100, counter });
    history.push({ role: 'user', content: 'next' });
    selectContextByTokens(history, { maxTokens: 100, counter });
    expect(seen.sort()).toEqual([...messages, history[4]].map((message) => JSON.stringify(message)).sort());
  });

  it('rejects bad options, counters and transcripts', () => {
    expect(() => selectContextByTokens(messages, { maxTokens: 0 })).toThrow(
      'maxTokens must be a positive integer or Infinity, got number 0',
    );
    expect(() => selectContextByTokens(messages, undefined as never)).toThrow(ConfigError);
    expect(() => selectContextByTokens(messages, { maxTokens: 10, counter: 'x' as never })).toThrow(ConfigError);
    expect(() => selectContextByTokens(messages, { maxTokens: 100, counter: () => Number.NaN })).toThrow(
      'The token counter must return a finite number >= 0, got number NaN for messages[0]',
    );
    expect(() => selectContextByTokens([messages[1] as Message], { maxTokens: 10 })).toThrow(TranscriptError);
  });
});
