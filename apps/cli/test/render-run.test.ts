import type { RunEvent } from '@bridle/events';
import { describe, expect, it } from 'vitest';
import { createRunRenderer, formatUsd, oneLinePreview, summarizeCommandResult } from '../src/render-run';
import { createStreamedMarkdown } from '../src/streamed-markdown';
import { createStyle } from '../src/style';

function sink() {
  const writes: string[] = [];
  return { writes, stream: { write: (chunk: string) => writes.push(chunk) > 0 } };
}

const base = { runId: 'r', sequence: 0, timestamp: '2026-01-01T00:00:00.000Z' };
const usage = { inputTokens: 3, outputTokens: 4 };

describe('createRunRenderer', () => {
  it('streams text to stdout and puts compact tool lines on stderr after a line break', () => {
    const out = sink();
    const err = sink();
    const all: string[] = [];
    const tap = (target: ReturnType<typeof sink>) => ({
      write: (chunk: string) => {
        all.push(chunk);
        return target.stream.write(chunk);
      },
    });
    const renderer = createRunRenderer({ stdout: tap(out), stderr: tap(err), style: createStyle(false), maxWidth: 30 });
    const events = [
      { type: 'text_delta', step: 1, text: 'Let me ' },
      { type: 'text_delta', step: 1, text: 'check.' },
      { type: 'model_end', step: 1, durationMs: 5, usage, toolCalls: 1, content: 'Let me check.' },
      {
        type: 'tool_start',
        step: 1,
        callId: 'c1',
        name: 'read_file',
        arguments: { path: 'a very long path/that goes on and on.txt' },
      },
      {
        type: 'tool_end',
        step: 1,
        callId: 'c1',
        name: 'read_file',
        durationMs: 2.4,
        isError: false,
        result: 'line 1\nline 2',
      },
      {
        type: 'tool_end',
        step: 1,
        callId: 'c2',
        name: 'edit_file',
        durationMs: 1,
        isError: true,
        result: 'Invalid arguments: $.oldText: required',
      },
      { type: 'model_error', step: 2, attempt: 1, error: 'rate limited', retryable: true, willRetry: true },
    ] as RunEvent[];
    for (const event of events) renderer.onEvent({ ...base, ...event } as RunEvent);
    renderer.finish({ status: 'completed', steps: 2, toolCalls: 1, usage });
    expect(out.writes.join('')).toBe('Let me check.\n');
    expect(err.writes.join('').split('\n')).toEqual([
      '→ read_file {"path":"a very long path/tha…',
      '← read_file 2ms line 1 line 2',
      '✗ edit_file 1ms Invalid arguments: $.oldText:…',
      '! rate limited (attempt 1, retrying)',
      '✓ completed · 2 steps · 1 tool call · 3 in / 4 out tokens',
      '',
    ]);
    expect(all.slice(0, 4)).toEqual(['Let me ', 'check.', '\n', '→ read_file {"path":"a very long path/tha…\n']);
  });

  it('prints a provider error that ends the run once: on the outcome line, not also as a retry line', () => {
    const out = sink();
    const err = sink();
    const renderer = createRunRenderer({ stdout: out.stream, stderr: err.stream, style: createStyle(false) });
    const failure = { type: 'model_error', step: 1, retryable: true, error: 'openai: 503 overloaded' } as const;
    renderer.onEvent({ ...base, ...failure, attempt: 1, willRetry: true } as RunEvent);
    renderer.onEvent({ ...base, ...failure, attempt: 2, willRetry: false } as RunEvent);
    renderer.finish({ status: 'model_error', steps: 0, toolCalls: 0, usage, error: 'openai: 503 overloaded' });
    expect(err.writes.join('').split('\n')).toEqual([
      '! openai: 503 overloaded (attempt 1, retrying)',
      '✗ model_error: openai: 503 overloaded · 0 steps · 0 tool calls · 3 in / 4 out tokens',
      '',
    ]);
  });

  it('with a Markdown renderer, writes each block rendered once complete; the rest before a stderr line', () => {
    const all: string[] = [];
    const tap = { write: (chunk: string) => all.push(chunk) > 0 };
    const markdown = () => createStreamedMarkdown((text: string) => `<${text.trim()}>`);
    const renderer = createRunRenderer({ stdout: tap, stderr: tap, style: createStyle(false), markdown });
    const events = [
      { type: 'text_delta', step: 1, text: '# Plan\nRead' },
      { type: 'text_delta', step: 1, text: ' it.\n' },
      { type: 'text_delta', step: 1, text: '- a' },
      { type: 'model_end', step: 1, durationMs: 5, usage, toolCalls: 1, content: '' },
      { type: 'tool_start', step: 1, callId: 'c1', name: 'read_file', arguments: {} },
      { type: 'model_end', step: 2, durationMs: 5, usage, toolCalls: 0, content: '**Done**' },
    ] as RunEvent[];
    for (const event of events) renderer.onEvent({ ...base, ...event } as RunEvent);
    renderer.finish({ status: 'completed', steps: 2, toolCalls: 1, usage });
    expect(all).toEqual([
      '<# Plan>',
      // "- a" never got its line break, so the paragraph before it waits for the end of the step.
      '\n\n<Read it.\n- a>',
      '\n',
      '→ read_file {}\n',
      '<**Done**>',
      '\n',
      '✓ completed · 2 steps · 1 tool call · 3 in / 4 out tokens\n',
    ]);
  });

  it('prints the text of a model that does not stream when its step ends', () => {
    const out = sink();
    const err = sink();
    const renderer = createRunRenderer({ stdout: out.stream, stderr: err.stream, style: createStyle(false) });
    renderer.onEvent({
      ...base,
      type: 'model_end',
      step: 1,
      durationMs: 1,
      usage,
      toolCalls: 0,
      content: 'Hello.',
    } as RunEvent);
    renderer.finish({ status: 'step_limit', steps: 1, toolCalls: 0, usage, error: 'Stopped after 1 step' });
    expect(out.writes.join('')).toBe('Hello.\n');
    expect(err.writes.join('')).toBe(
      '✗ step_limit: Stopped after 1 step · 1 step · 0 tool calls · 3 in / 4 out tokens\n',
    );
  });

  it('shows the cost when the price is known', () => {
    const err = sink();
    const renderer = createRunRenderer({ stdout: sink().stream, stderr: err.stream, style: createStyle(false) });
    renderer.finish({ status: 'completed', steps: 1, toolCalls: 0, usage: { ...usage, costUsd: 0.0001234 } });
    expect(err.writes.join('')).toBe('✓ completed · 1 step · 0 tool calls · 3 in / 4 out tokens · $0.000123\n');
    expect([12.345, 0.5, 0, 1e-7].map(formatUsd)).toEqual(['$12.35', '$0.5', '$0', '<$0.00001']);
  });

  it('colours only when enabled', () => {
    const err = sink();
    const renderer = createRunRenderer({ stdout: sink().stream, stderr: err.stream, style: createStyle(true) });
    renderer.finish({ status: 'completed', steps: 1, toolCalls: 0, usage });
    expect(err.writes.join('')).toContain('\u001b[');
  });
});

describe('oneLinePreview', () => {
  it('collapses whitespace, serializes values and cuts to the width', () => {
    expect(oneLinePreview('a\n\n b', 10)).toBe('a b');
    expect(oneLinePreview({ a: 1 }, 10)).toBe('{"a":1}');
    expect(oneLinePreview(undefined, 10)).toBe('undefined');
    expect(oneLinePreview('abcdefghijk', 5)).toBe('abcd…');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(oneLinePreview(cyclic, 20)).toBe('[object Object]');
  });
});

describe('summarizeCommandResult', () => {
  it('shows the exit status and the end of the output', () => {
    const result = JSON.stringify({
      exitCode: 1,
      signal: null,
      stdout: 'TAP\nnot ok 1\n# pass 2\n# fail 2\n',
      stderr: '',
      timedOut: false,
    });
    expect(summarizeCommandResult(result, 30)).toBe('exit 1 · … 1 # pass 2 # fail 2');
    expect(summarizeCommandResult(JSON.stringify({ exitCode: 0, signal: null, stdout: '', stderr: '' }), 30)).toBe(
      'exit 0',
    );
    expect(
      summarizeCommandResult(JSON.stringify({ exitCode: null, signal: 'SIGKILL', stdout: 'x', timedOut: true }), 30),
    ).toBe('timed out · x');
    expect(summarizeCommandResult(JSON.stringify({ exitCode: null, signal: 'SIGTERM', stdout: '' }), 30)).toBe(
      'killed by SIGTERM',
    );
  });

  it('leaves other results alone', () => {
    expect(summarizeCommandResult('plain text', 30)).toBeUndefined();
    expect(summarizeCommandResult('{"exitCode": 1, cut…', 30)).toBeUndefined();
    expect(summarizeCommandResult('{"value":"exitCode"}', 30)).toBeUndefined();
  });
});
