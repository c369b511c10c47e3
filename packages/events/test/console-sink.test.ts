import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { consoleSink, defaultColor } from '../src/console-sink';
import { formatEvent, preview } from '../src/format-event';
import { sampleRun } from './test-events';

function capture(options: { color?: boolean; isTTY?: boolean } = {}) {
  const stream = Object.assign(new PassThrough(), { isTTY: options.isTTY });
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const sink = consoleSink({ stream, ...(options.color === undefined ? {} : { color: options.color }) });
  return { sink, text: () => chunks.join('') };
}

describe('consoleSink', () => {
  it('prints one compact line per event (no text deltas)', () => {
    const { sink, text } = capture({ color: false });
    for (const event of sampleRun) sink(event);
    expect(text()).toBe(
      [
        'run r1 started · model scripted:model',
        'step 1 · model call',
        'step 1 · model error [rate_limited]: rate limited (retrying)',
        'step 1 · model call (attempt 2)',
        'step 1 · model answered in 117ms · 2 tool calls · 10 in / 2 out tokens',
        'step 1 · add {"a":1,"b":2}',
        'step 1 · add ok in 3ms: 3',
        'step 1 · add {"a":"x"}',
        'step 1 · add failed in 1ms: Invalid arguments: $.a: must be number',
        'step 2 · model call',
        'step 2 · model answered in 1.4s · 0 tool calls · 20 in / 5 out tokens',
        'run completed in 1.5s · 2 steps · 2 tool calls · 30 in / 7 out tokens',
        '',
      ].join('\n'),
    );
  });

  it('colors with ANSI codes when asked', () => {
    const { sink, text } = capture({ color: true });
    sink(sampleRun[6]!);
    expect(text()).toBe(
      '\u001b[2mstep 1 · \u001b[22m\u001b[36madd\u001b[39m \u001b[32mok\u001b[39m in 3ms: \u001b[2m3\u001b[22m\n',
    );
  });

  it('defaults to color only on a TTY without NO_COLOR', () => {
    expect(defaultColor({ isTTY: true }, {})).toBe(true);
    expect(defaultColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(defaultColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(defaultColor({ isTTY: false }, {})).toBe(false);
    expect(defaultColor({}, {})).toBe(false);
    const { sink, text } = capture({ isTTY: false });
    sink(sampleRun[0]!);
    expect(text()).toBe('run r1 started · model scripted:model\n');
  });

  it('prints the error of a failed run and escapes control characters', () => {
    const { sink, text } = capture({ color: false });
    sink({
      type: 'run_end',
      runId: 'r',
      sequence: 0,
      timestamp: 't',
      status: 'model_error',
      steps: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 2,
      error: 'bad\u001b[31m\nthing',
    });
    expect(text()).toBe(
      'run model_error in 2ms · 0 steps · 0 tool calls · 0 in / 0 out tokens\n  error: bad\\u001b[31m\\nthing\n',
    );
  });

  it('never throws when the stream is broken', () => {
    const stream = {
      write() {
        throw new Error('EPIPE');
      },
    } as unknown as NodeJS.WritableStream;
    const sink = consoleSink({ stream, color: false });
    expect(() => sink(sampleRun[0]!)).not.toThrow();
  });
});

describe('formatEvent and preview', () => {
  it('skips text deltas and cuts long text', () => {
    expect(formatEvent(sampleRun[10]!)).toBeUndefined();
    expect(preview('a'.repeat(100), 10)).toBe(`${'a'.repeat(9)}…`);
    expect(preview('tab\there')).toBe('tab\\there');
  });

  it('shows approval requests with their deadline, and who decided (model text escaped)', () => {
    const base = { runId: 'r', sequence: 3, timestamp: '2026-12-07T10:00:00.000Z' };
    expect(
      formatEvent({
        ...base,
        type: 'approval_requested',
        step: 2,
        callId: 'c\u001b[2J1',
        name: 'send',
        deadline: '2026-12-07T10:05:00.000Z',
      }),
    ).toBe('step 2 · approval asked for send (c\\u001b[2J1) · decide by 2026-12-07T10:05:00.000Z');
    expect(
      formatEvent({ ...base, type: 'approval_decided', callId: 'c1', approved: false, decidedBy: 'timeout' }),
    ).toBe('call c1 denied by timeout');
    expect(
      formatEvent({ ...base, type: 'approval_decided', callId: 'c1', approved: true, decidedBy: 'person', by: 'ada' }),
    ).toBe('call c1 approved by person (ada)');
  });

  it('shows unserializable arguments without throwing', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const line = formatEvent({ ...sampleRun[5]!, arguments: circular } as never);
    expect(line).toBe('step 1 · add [unserializable]');
  });
});
