import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBatchProgressView, estimateSecondsLeft } from '../src/batch-progress';
import { createStyle } from '../src/style';

const snapshot = { total: 2, done: 1, succeeded: 0, failed: 1, aborted: 0, running: 1, pending: 0, retries: 0 };
const result = {
  index: 0,
  id: 'a',
  status: 'model_error' as const,
  error: 'boom\nat line 2',
  attempts: 2,
  steps: 0,
  toolCalls: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  durationMs: 12.4,
};

function capture(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 80 });
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('createBatchProgressView', () => {
  it('writes one plain line per finished item when not on a TTY', () => {
    const { stream, text } = capture(false);
    const view = createBatchProgressView(stream, createStyle(false), 2);
    view.progress(snapshot);
    view.result(result);
    view.stop();
    expect(text()).toBe('[1/2] a model_error (2 attempts, 12ms) boom at line 2\n');
  });

  it('draws a bar with done, failed, rate and ETA on a TTY', () => {
    const { stream, text } = capture(true);
    const view = createBatchProgressView(stream, createStyle(false), 2);
    view.progress(snapshot);
    view.result(result);
    view.stop();
    expect(text()).toMatch(/1\/2 done · 1 failed · [\d.]+\/s · ETA /);
    expect(text()).not.toContain('[1/2] a');
  });

  it('estimates from the items still running: 12 items left, 4 at a time, 10 s each, is 30 s (then counts down)', async () => {
    const { stream, text } = capture(true);
    let clock = 0;
    const view = createBatchProgressView(stream, createStyle(false), 13, { concurrency: 4, now: () => clock });
    clock = 10_000;
    view.result({ ...result, status: 'completed', error: undefined, durationMs: 10_000 } as never);
    view.progress({ total: 13, done: 1, succeeded: 1, failed: 0, aborted: 0, running: 4, pending: 8, retries: 0 });
    // The bar draws on its own timer (10 frames a second).
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(lastFrame(text())).toBe('1/13 done · 0 failed · 0.1/s · ETA 30s');
    clock = 15_000;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(lastFrame(text())).toBe('1/13 done · 0 failed · 0.1/s · ETA 25s');
    view.stop();
  });

  it('after an interruption the last frame counts only the items that finished, and names the rest', () => {
    const { stream, text } = capture(true);
    const view = createBatchProgressView(stream, createStyle(false), 13, { concurrency: 4 });
    view.progress({ total: 13, done: 13, succeeded: 10, failed: 0, aborted: 3, running: 0, pending: 0, retries: 0 });
    view.stop();
    expect(lastFrame(text())).toMatch(/^10\/13 done · 0 failed · 3 not finished · [\d.]+\/s$/);
    expect(text()).not.toContain('13/13');
  });

  it('a note goes on a line of its own above the bar', () => {
    const { stream, text } = capture(true);
    const view = createBatchProgressView(stream, createStyle(false), 2);
    view.note('No worker is consuming queue bridle:bridle-runs');
    view.stop();
    expect(text()).toContain('\r\u001b[2KNo worker is consuming queue bridle:bridle-runs\n');
    expect(lastFrame(text())).toMatch(/^0\/2 done · 0 failed · 0.0\/s · ETA …$/);
  });

  it.each([
    [{ finished: 0, left: 5, meanDurationMs: 1000, elapsedMs: 1000, concurrency: 2 }, undefined],
    [{ finished: 3, left: 0, meanDurationMs: 1000, elapsedMs: 1000, concurrency: 2 }, 0],
    [{ finished: 1, left: 3, meanDurationMs: 6000, elapsedMs: 6000, concurrency: 8 }, 6],
    [{ finished: 2, left: 4, meanDurationMs: 9000, elapsedMs: 3000 }, 6],
  ])('estimateSecondsLeft(%o) is %s', (input, expected) => {
    expect(estimateSecondsLeft(input)).toBe(expected);
  });
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing terminal escape sequences is the point.
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g;

/** The text of the bar's last frame (after its bar characters), escape sequences removed. */
function lastFrame(text: string): string {
  const frames = text
    .replace(ESCAPES, '\n')
    .split(/[\r\n]/)
    .filter((line) => line.includes(' done · '));
  return (frames.at(-1) ?? '').replace(/^[█░]+ /, '').trim();
}
