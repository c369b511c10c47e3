import type { RunEvent } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { publicEvent } from '../src/run-views';

const base = { runId: 'r', sequence: 0, timestamp: '2026-01-01T00:00:00.000Z' };
const usage = { inputTokens: 1, outputTokens: 1 };
const url = 'https://alice:s3cret@llm.example/v1?api-key=k3y';

describe('publicEvent', () => {
  it('removes credentials from model ids and model errors, and the system prompt from run_start', () => {
    const shown = [
      { ...base, type: 'run_start', model: `openai-compatible:${url}#m`, system: 'operator secrets' },
      { ...base, type: 'model_end', step: 1, durationMs: 1, usage, toolCalls: 0, content: '', model: `x:${url}` },
      {
        ...base,
        type: 'model_error',
        step: 1,
        attempt: 1,
        error: `cannot reach ${url}`,
        retryable: false,
        willRetry: false,
      },
      {
        ...base,
        type: 'run_end',
        status: 'model_error',
        steps: 1,
        toolCalls: 0,
        usage,
        durationMs: 1,
        error: `failed: ${url}`,
      },
    ].map((event) => publicEvent(event as RunEvent));
    const text = JSON.stringify(shown);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('k3y');
    expect(text).not.toContain('operator secrets');
    expect(shown[2]).toMatchObject({ error: 'cannot reach https://llm.example/v1' });
  });
});
