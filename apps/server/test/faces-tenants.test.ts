import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { echoModel, gatedModel, type Json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

/** Polls `check` every 100 ms, for at most 10 s. */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the condition did not hold within 10 s');
}

const say = (text: string) => ({ id: 'c', messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text }] }] });
const a2aSend = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text }] } },
});

describe('quotas and revoked keys on /api/ui/chat and /a2a', () => {
  it('requestsPerMinute holds on /api/ui/chat: 429 with Retry-After', async () => {
    const file = writeKeysFile([KEYS.acme], { acme: { requestsPerMinute: 1 } });
    const server = await startTestServer({ model: echoModel(), env: { BRIDLE_API_KEYS_FILE: file } });
    // Three requests span at most two minutes, so at least two of them share one: one of those is refused.
    const answers = [];
    for (const text of ['one', 'two', 'three']) {
      const answer = await fetch(`${server.url}/api/ui/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
        body: JSON.stringify({ ...say(text), id: text }),
      });
      answers.push({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.text() });
    }
    expect(answers[0]?.status).toBe(200);
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused?.body).toContain('quota_exceeded');
    expect(Number(refused?.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('tokensPerDay holds on /a2a: once used up, message/send is a JSON-RPC error naming the quota, and nothing runs', async () => {
    let calls = 0;
    const model = scriptedModel(() => {
      calls++;
      return { content: 'answer', usage: { inputTokens: 100, outputTokens: 100 } };
    });
    const file = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { tokensPerDay: 150 } });
    const server = await startTestServer({ model, env: { BRIDLE_API_KEYS_FILE: file } });
    const first = await postJson(`${server.url}/a2a`, a2aSend('hi'), bearer(KEYS.acme));
    expect(first.body.result.status.state, JSON.stringify(first.body)).toBe('completed');
    expect(calls).toBe(1);
    const refused = await postJson(`${server.url}/a2a`, a2aSend('again'), bearer(KEYS.acme));
    expect(refused.body.error.code).toBe(-32000);
    expect(refused.body.error.message).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(150 tokens; 200 used today\)/,
    );
    expect(calls).toBe(1);
    // The other tenant is served.
    const other = await postJson(`${server.url}/a2a`, a2aSend('hi'), bearer(KEYS.globex));
    expect(other.body.result.status.state).toBe('completed');
    expect(calls).toBe(2);
  });

  it('a key revoked while its useChat stream is open: the stream ends, the run goes on for its tenant', async () => {
    const reader = { ...KEYS.acme, name: 'acme-other', secret: 'acme-other-0123456789' };
    const file = writeKeysFile([KEYS.acme, reader]);
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, env: { BRIDLE_API_KEYS_FILE: file } });
    const response = await fetch(`${server.url}/api/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
      body: JSON.stringify(say('hello')),
    });
    expect(response.status).toBe(200);
    await gated.started;
    writeKeysFile([reader], {}, file);
    // The stream ends without the run's end.
    const text = await response.text();
    expect(text).toContain('"type":"start"');
    expect(text).not.toContain('[DONE]');
    gated.release();
    await waitFor(async () => {
      const runs = (await (await fetch(`${server.url}/api/runs`, { headers: bearer(reader) })).json()) as Json;
      return runs.runs[0]?.status === 'completed';
    });
  });
});
