import { ConfigError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { startTestServer } from './helpers';

// A model that never gives a final answer: it calls the clock tool at every step.
const loopingModel = () =>
  scriptedModel((request) => ({
    content: '',
    toolCalls: [{ id: `c${request.messages.length}`, name: 'clock', arguments: {} }],
  }));

async function chat(url: string, body: object) {
  const response = await fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { status: string; steps: number };
}

describe("createServer's agent options", () => {
  it('refuses an agent key that is not a run option at startup, naming it and the accepted ones', () => {
    const create = () => createServer({ env: {}, logger: false, agent: { maxStep: 3 } as never });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(
      /Unknown option agent\.maxStep\. Accepted: maxSteps, maxToolCalls, .*sessionId, approvalTimeoutMs\./,
    );
  });

  it('passes agent.decisionKey to every run (a key too short is refused when a run starts, naming it)', async () => {
    const server = await startTestServer({
      model: scriptedModel([{ content: 'hi' }]),
      agent: { decisionKey: 'short' },
    });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'go' }),
    });
    expect(JSON.stringify(await response.json())).toContain(
      'Invalid option decisionKey: expected a secret of at least 32 bytes',
    );
    const good = await startTestServer({
      model: scriptedModel([{ content: 'hi' }]),
      agent: { decisionKey: 'k'.repeat(32) },
    });
    expect(await chat(good.url, { prompt: 'go' })).toMatchObject({ status: 'completed' });
  });

  it('applies agent.maxSteps to every run; a request maxSteps on /api/chat wins', async () => {
    const server = await startTestServer({ model: loopingModel(), agent: { maxSteps: 2 } });
    expect(await chat(server.url, { prompt: 'go' })).toMatchObject({ status: 'step_limit', steps: 2 });
    expect(await chat(server.url, { prompt: 'go', maxSteps: 3 })).toMatchObject({ status: 'step_limit', steps: 3 });
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bridle:assistant', messages: [{ role: 'user', content: 'go' }] }),
    });
    const runs = (await (await fetch(`${server.url}/api/runs`)).json()) as { runs: { steps: number }[] };
    expect(response.status).toBe(422);
    expect(runs.runs.map((run) => run.steps).sort()).toEqual([2, 2, 3]);
  });
});
