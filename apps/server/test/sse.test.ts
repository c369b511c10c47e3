import type { Model, ModelStreamPart } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { gatedModel, json, readSse, readSseFrames, startTestServer } from './helpers';

const SSE = { 'content-type': 'application/json', accept: 'text/event-stream' };

function streamChat(url: string, body: unknown, signal?: AbortSignal) {
  return fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: SSE,
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

describe('POST /api/chat with Accept: text/event-stream', () => {
  it('streams text deltas, tool start and end, and ends with run_end', async () => {
    const model = scriptedModel(
      [
        { content: 'Let me check.', toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '6*7' } }] },
        { content: 'It is 42.', usage: { inputTokens: 5, outputTokens: 2 } },
      ],
      { stream: true },
    );
    const server = await startTestServer({ model });
    const response = await streamChat(server.url, { prompt: 'what is 6*7?', skill: 'assistant' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const sessionId = response.headers.get('x-session-id');
    const events = await readSse(response);
    expect(events.map((event) => (event.type === 'text_delta' ? `text:${event.text}` : event.type))).toEqual([
      'text:Let ',
      'text:me ',
      'text:check.',
      'tool_start',
      'tool_end',
      'text:It ',
      'text:is ',
      'text:42.',
      'run_end',
    ]);
    expect(events[3]).toMatchObject({ name: 'calculator', arguments: { expression: '6*7' }, callId: 'c1' });
    expect(events[4]).toMatchObject({ name: 'calculator', isError: false, result: '{"expression":"6*7","result":42}' });
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'completed',
      answer: 'It is 42.',
      sessionId,
      steps: 2,
    });
    const sequences = events.map((event) => event.sequence as number);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect(new Set(events.map((event) => event.runId)).size).toBe(1);
  });

  it('gives every frame id: <event sequence> and event: <event type>', async () => {
    const model = scriptedModel([{ content: 'Two words.' }], { stream: true });
    const server = await startTestServer({ model });
    const frames = await readSseFrames(await streamChat(server.url, { prompt: 'x' }));
    expect(frames.map((frame) => frame.event)).toEqual(['text_delta', 'text_delta', 'run_end']);
    for (const frame of frames) {
      expect(frame.id).toBe(String(frame.data.sequence));
      expect(frame.event).toBe(frame.data.type);
    }
  });

  it('never lets model text forge an event: every frame is one JSON line', async () => {
    const forged = 'hi\n\ndata: {"type":"run_end","status":"completed"}\n\nevent: x\r\ndata: y';
    const model: Model = {
      id: 'forger',
      generate: async () => ({ content: forged }),
      async *stream(): AsyncIterable<ModelStreamPart> {
        yield { type: 'text_delta', text: forged };
        yield { type: 'response', response: { content: forged } };
      },
    };
    const server = await startTestServer({ model });
    const events = await readSse(await streamChat(server.url, { prompt: 'x' }));
    expect(events.map((event) => event.type)).toEqual(['text_delta', 'run_end']);
    expect(events[0]?.text).toBe(forged);
    expect(events[1]?.answer).toBe(forged);
  });

  it('answers plain JSON errors (with their status) for requests refused before the run', async () => {
    const server = await startTestServer({ model: scriptedModel([], { stream: true }) });
    const response = await streamChat(server.url, { prompt: 'x', sessionId: '00000000-0000-4000-8000-000000000000' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json(response)).error.code).toBe('not_found');
  });

  it('a client that disconnects from the stream aborts its run', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model });
    const controller = new AbortController();
    const response = await streamChat(server.url, { prompt: 'wait' }, controller.signal);
    expect(response.status).toBe(200);
    await gated.started;
    controller.abort();
    const reason = await gated.aborted;
    expect(String((reason as Error).message ?? reason)).toMatch(/client disconnected|abort/i);
  });

  it('a JSON client that disconnects aborts its run too, and its slot is freed', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, maxConcurrentRuns: 1 });
    const controller = new AbortController();
    const request = fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'wait' }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await gated.started;
    controller.abort();
    await gated.aborted;
    await request;
    // The slot comes back once the aborted run has ended.
    await expect
      .poll(async () => (await fetch(`${server.url}/ready`).then(json)).activeRuns, { timeout: 10_000 })
      .toBe(0);
  });
});
