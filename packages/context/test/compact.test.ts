import { ConfigError, type Message, ModelResponseError, ProviderError, TranscriptError } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { compact, DEFAULT_SUMMARY_INSTRUCTIONS } from '../src/compact';

const first: Message = { role: 'user', content: 'Fix the failing test in src/add.ts' };
const call: Message = {
  role: 'assistant',
  content: 'Reading the file.',
  toolCalls: [
    { id: 'c1', name: 'read_file', arguments: { path: 'src/add.ts' } },
    { id: 'c2', name: 'run_tests', arguments: {} },
  ],
};
const read: Message = {
  role: 'tool',
  callId: 'c1',
  name: 'read_file',
  content: 'export const add = (a, b) => a - b;',
  isError: false,
};
const tests: Message = { role: 'tool', callId: 'c2', name: 'run_tests', content: 'expected 3, got -1', isError: true };
const answer: Message = { role: 'assistant', content: 'The sign is wrong.' };
const followUp: Message = { role: 'user', content: 'Then fix it.' };
const edit: Message = {
  role: 'assistant',
  content: '',
  toolCalls: [{ id: 'c3', name: 'edit_file', arguments: { path: 'src/add.ts', oldText: 'a - b', newText: 'a + b' } }],
};
const edited: Message = { role: 'tool', callId: 'c3', name: 'edit_file', content: 'edited', isError: false };
const transcript = [first, call, read, tests, answer, followUp, edit, edited];
const json = (message: Message) => JSON.stringify(message).length;

describe('compact', () => {
  it('summarizes the dropped part with one call and keeps the newest groups verbatim', async () => {
    const model = scriptedModel([
      { content: '  The user asked to fix add; a test showed a - b.  ', usage: { inputTokens: 120, outputTokens: 12 } },
    ]);
    const controller = new AbortController();
    const keepChars = json(followUp) + json(edit) + json(edited);
    const result = await compact({ model, messages: transcript, keepChars, signal: controller.signal });

    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toEqual({
      system: DEFAULT_SUMMARY_INSTRUCTIONS,
      tools: [],
      signal: controller.signal,
      messages: [
        {
          role: 'user',
          content: [
            'Summarize the conversation below. Its first user message is kept verbatim, so it is shown only for context.',
            '',
            '<first_message>',
            '[user]',
            'Fix the failing test in src/add.ts',
            '</first_message>',
            '',
            '<conversation>',
            '[assistant]',
            'Reading the file.',
            '[tool call c1] read_file {"path":"src/add.ts"}',
            '[tool call c2] run_tests {}',
            '',
            '[tool result c1 read_file]',
            'export const add = (a, b) => a - b;',
            '',
            '[tool error c2 run_tests]',
            'expected 3, got -1',
            '',
            '[assistant]',
            'The sign is wrong.',
            '</conversation>',
          ].join('\n'),
        },
      ],
    });
    expect(result).toEqual({
      messages: [
        first,
        { role: 'user', content: '[Summary of earlier conversation]\nThe user asked to fix add; a test showed a - b.' },
        followUp,
        edit,
        edited,
      ],
      summarized: 4,
      usage: { inputTokens: 120, outputTokens: 12 },
    });
    expect(result.messages[0]).toBe(first);
    expect(result.messages[3]).toBe(edit);
    expectValidTranscript(result.messages);
  });

  it('never splits a batch: one character less drops the whole older group', async () => {
    const model = scriptedModel([{ content: 'summary' }]);
    const keepChars = json(edit) + json(edited) + json(followUp) - 1;
    const result = await compact({ model, messages: transcript, keepChars });
    expect(result.messages).toEqual([
      first,
      { role: 'user', content: '[Summary of earlier conversation]\nsummary' },
      edit,
      edited,
    ]);
    expect(result.summarized).toBe(5);
    expect(result).not.toHaveProperty('usage');
  });

  it('keeps the newest group even when it alone is over the budget', async () => {
    const model = scriptedModel([{ content: 'summary' }]);
    const result = await compact({ model, messages: transcript, keepChars: 1 });
    expect(result.messages.slice(2)).toEqual([edit, edited]);
    expectValidTranscript(result.messages);
  });

  it('makes no call when everything fits', async () => {
    const model = scriptedModel([]);
    const result = await compact({ model, messages: transcript, keepTokens: 100_000 });
    expect(result).toEqual({ messages: transcript, summarized: 0 });
    expect(result.messages).not.toBe(transcript);
    expect(model.requests).toHaveLength(0);
  });

  it('budgets by tokens with a custom counter and instructions, and bounds long contents', async () => {
    const model = scriptedModel([{ content: 'short' }]);
    const long: Message = { role: 'user', content: 'x'.repeat(500) };
    const messages: Message[] = [first, long, answer, followUp];
    // One token per message: the budget of 2 keeps the last two groups.
    const result = await compact({
      model,
      messages,
      keepTokens: 2,
      counter: () => 1,
      instructions: 'Be brief.',
      maxMessageChars: 100,
    });
    expect(result.messages).toEqual([
      first,
      { role: 'user', content: '[Summary of earlier conversation]\nshort' },
      answer,
      followUp,
    ]);
    const request = model.requests[0];
    expect(request?.system).toBe('Be brief.');
    const prompt = request?.messages[0]?.content ?? '';
    // 400 omitted needs a 34-character marker: 66 left, 33 of head and 33 of tail.
    expect(prompt).toContain(
      `[user]\n${'x'.repeat(33)}\n[... 434 characters omitted ...]\n${'x'.repeat(33)}\n</conversation>`,
    );
  });

  it('folds an earlier summary into the next one', async () => {
    const model = scriptedModel([{ content: 'one' }, { content: 'two' }]);
    const once = await compact({ model, messages: transcript, keepChars: 1 });
    const grown = [...once.messages, { role: 'assistant', content: 'Done.' } as Message];
    const twice = await compact({ model, messages: grown, keepChars: 1 });
    expect(twice.messages).toEqual([
      first,
      { role: 'user', content: '[Summary of earlier conversation]\ntwo' },
      grown[4],
    ]);
    expect(model.requests[1]?.messages[0]?.content).toContain(
      [
        '<conversation>',
        '[user]',
        '[Summary of earlier conversation]',
        'one',
        '',
        '[assistant]',
        '[tool call c3] edit_file {"path":"src/add.ts","oldText":"a - b","newText":"a + b"}',
        '',
        '[tool result c3 edit_file]',
        'edited',
        '</conversation>',
      ].join('\n'),
    );
  });

  it('lets model errors and aborts through and changes nothing', async () => {
    const failure = new ProviderError({ code: 'server', message: 'boom', provider: 'test' });
    await expect(compact({ model: scriptedModel([failure]), messages: transcript, keepChars: 1 })).rejects.toBe(
      failure,
    );
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const model = scriptedModel([{ content: 'unused' }]);
    await expect(compact({ model, messages: transcript, keepChars: 1, signal: controller.signal })).rejects.toThrow(
      'stop',
    );
    expect(model.requests).toHaveLength(0);
  });

  it('rejects an invalid or empty response', async () => {
    await expect(
      compact({ model: scriptedModel([{ content: 42 } as never]), messages: transcript, keepChars: 1 }),
    ).rejects.toThrow(ModelResponseError);
    await expect(
      compact({ model: scriptedModel([{ content: '  ' }]), messages: transcript, keepChars: 1 }),
    ).rejects.toThrow(
      'The model scripted:model returned an empty summary; nothing was compacted. Try again or use another model.',
    );
  });

  it('rejects bad options and transcripts before any call', async () => {
    const model = scriptedModel([]);
    await expect(compact({ model, messages: transcript, keepChars: 10, keepTokens: 10 })).rejects.toThrow(
      'compact takes keepChars or keepTokens, not both',
    );
    await expect(compact({ model, messages: transcript, keepChars: 0 })).rejects.toThrow(ConfigError);
    await expect(compact({ model, messages: transcript, keepTokens: -5 })).rejects.toThrow(
      'keepTokens must be a positive integer or Infinity, got number -5',
    );
    await expect(compact({ model: {} as never, messages: transcript })).rejects.toThrow(ConfigError);
    await expect(compact({ model, messages: [call] })).rejects.toThrow(TranscriptError);
    expect(model.requests).toHaveLength(0);
  });
});
