import { Agent, request } from 'node:http';
import { ProviderError } from '@bridle/protocol';
import { fakeOpenAIServer } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { echoModel, json, postJson, startTestServer } from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/chat (JSON)', () => {
  it('answers with the run result and a new session id', async () => {
    const server = await startTestServer({ model: echoModel() });
    const { status, headers, body } = await postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    expect(status).toBe(200);
    expect(headers.get('x-request-id')).toMatch(UUID);
    expect(body).toEqual({
      answer: 'echo: hello',
      status: 'completed',
      runId: expect.any(String),
      sessionId: expect.stringMatching(UUID),
      steps: 1,
      toolCalls: 0,
      usage: { inputTokens: 2, outputTokens: 3 },
    });
  });

  it('continues a session: the model sees the earlier turns', async () => {
    const model = echoModel();
    const server = await startTestServer({ model });
    const first = await postJson(`${server.url}/api/chat`, { prompt: 'one' });
    const second = await postJson(`${server.url}/api/chat`, { prompt: 'two', sessionId: first.body.sessionId });
    expect(second.body).toMatchObject({ answer: 'echo: two', sessionId: first.body.sessionId });
    expect(model.requests[1]?.messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one' },
      { role: 'user', content: 'two' },
    ]);
  });

  it('applies a skill: its instructions join the system prompt and its tools are offered', async () => {
    const model = echoModel();
    const server = await startTestServer({ model, system: 'Be kind.' });
    await postJson(`${server.url}/api/chat`, { prompt: 'time?', skill: 'assistant' });
    expect(model.requests[0]?.system).toMatch(/^Be kind\.\n\n<skill name="assistant">\n/);
    expect(model.requests[0]?.tools.map((tool) => tool.name).sort()).toEqual(
      expect.arrayContaining(['calculator', 'clock']),
    );
    const unknown = await postJson(`${server.url}/api/chat`, { prompt: 'x', skill: 'wizard' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 'bad_request',
      message: 'Unknown skill "wizard": this server offers "assistant", "analyst".',
    });
  });

  it('passes maxSteps to the run', async () => {
    const server = await startTestServer({
      model: {
        id: 'loop',
        generate: async (request) => ({
          content: '',
          toolCalls: [{ id: `c${request.messages.length}`, name: 'clock', arguments: {} }],
        }),
      },
    });
    const { body } = await postJson(`${server.url}/api/chat`, { prompt: 'loop', maxSteps: 2, skill: 'assistant' });
    expect(body).toMatchObject({ status: 'step_limit', steps: 2, toolCalls: 2 });
  });

  it('talks to a real provider adapter through the fake OpenAI server, configured by environment', async () => {
    const fake = await fakeOpenAIServer([
      { content: 'from the fake provider', usage: { inputTokens: 7, outputTokens: 4 } },
    ]);
    try {
      const server = await startTestServer({
        env: { BRIDLE_MODEL: 'openai:fake-model', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL },
      });
      const ready = await fetch(`${server.url}/ready`);
      expect(await json(ready)).toEqual({
        status: 'ready',
        model: expect.stringContaining('fake-model'),
        activeRuns: 0,
      });
      const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'hi there' });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        answer: 'from the fake provider',
        status: 'completed',
        usage: { inputTokens: 7, outputTokens: 4 },
      });
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-test');
      expect(JSON.stringify(fake.requests[0]?.body)).toContain('hi there');
    } finally {
      await fake.close();
    }
  });

  it('reports a model failure as the run status, with the (provider) error', async () => {
    const server = await startTestServer({
      model: {
        id: 'broken',
        generate: async () =>
          Promise.reject(new ProviderError({ code: 'server', message: 'upstream exploded', provider: 'fake' })),
      },
      agent: { retry: { maxRetries: 0 } },
    });
    const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'x' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'model_error', steps: 0 });
    expect(body.error).toContain('upstream exploded');
    expect(body.answer).toBeUndefined();
  });

  it('runs prompt after prompt on one keep-alive connection without leaving a listener behind', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const server = await startTestServer({ model: echoModel() });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const url = new URL(`${server.url}/api/chat`);
    try {
      // More runs than the 10 listeners at which Node warns of a leak on one signal.
      for (let turn = 0; turn < 25; turn += 1) {
        const body = JSON.stringify({ prompt: `turn ${turn}` });
        const answer = await new Promise<string>((resolve, reject) => {
          const req = request(
            { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST' },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk) => (text += chunk));
              res.on('end', () => resolve(text));
            },
          );
          req.on('socket', (socket) => sockets.add(socket));
          req.on('error', reject);
          req.setHeader('content-type', 'application/json');
          req.end(body);
        });
        expect(JSON.parse(answer)).toMatchObject({ status: 'completed', answer: `echo: turn ${turn}` });
      }
    } finally {
      agent.destroy();
      process.off('warning', onWarning);
    }
    expect(sockets.size).toBe(1);
    expect(warnings).toEqual([]);
  });
});
