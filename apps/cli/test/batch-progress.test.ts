import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBatchProgressView } from '../src/batch-progress';
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
});
