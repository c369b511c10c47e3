import { describe, expect, it } from 'vitest';
import { gatedModel, json, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

/** Reads a response body to its end (or its cut), as text. */
async function readToEnd(response: Response): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A cut connection ends the body with an error: what was read stands.
    return text;
  }
}

/** Polls `check` every 50 ms for up to 10 s. */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting');
}

/** A server whose model waits for `release()`, with keys for acme (chat), acme's reader and globex. */
async function revokable() {
  const gated = gatedModel();
  const file = writeKeysFile([KEYS.acme, KEYS.acmeReader, KEYS.globex]);
  const server = await startTestServer({ model: gated.model, env: { BRIDLE_API_KEYS_FILE: file } });
  const revoke = () => writeKeysFile([KEYS.acmeReader, KEYS.globex], {}, file);
  const runs = async () =>
    (await json(await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acmeReader) }))).runs as {
      runId: string;
      status: string;
    }[];
  return { gated, server, file, revoke, runs };
}

// A key removed from BRIDLE_API_KEYS_FILE while a stream of it is open: the stream ends (within the file's
// reload), the run goes on for its tenant and ends as it would have; other keys of the tenant still see it.
describe('a key revoked while its stream is open', () => {
  it('POST /api/chat (SSE): the stream ends without run_end; the run completes and the session keeps it', async () => {
    const { gated, server, revoke, runs } = await revokable();
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...bearer(KEYS.acme) },
      body: JSON.stringify({ prompt: 'keep going' }),
    });
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('x-session-id') as string;
    await gated.started;
    revoke();
    const text = await readToEnd(response);
    expect(text).not.toContain('run_end');
    gated.release();
    await waitFor(async () => (await runs())[0]?.status === 'completed');
    const session = await json(
      await fetch(`${server.url}/api/sessions/${sessionId}`, { headers: bearer(KEYS.acmeReader) }),
    );
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'released' });
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status).toBe(401);
  });

  it('GET /api/runs/:id/events: the follower is cut; the run goes on', async () => {
    const { gated, server, file, runs } = await revokable();
    // The run is started by the reader's tenant-mate acme, and followed by a key that is then revoked.
    const chat = fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
      body: JSON.stringify({ prompt: 'followed' }),
    });
    await gated.started;
    const [run] = await runs();
    const follower = await fetch(`${server.url}/api/runs/${run?.runId}/events`, { headers: bearer(KEYS.acmeReader) });
    expect(follower.status).toBe(200);
    writeKeysFile([KEYS.acme, KEYS.globex], {}, file);
    const text = await readToEnd(follower);
    expect(text).toContain('event: run_start');
    expect(text).not.toContain('run_end');
    gated.release();
    expect(await json(await chat)).toMatchObject({ status: 'completed', answer: 'released' });
  });

  it('POST /v1/chat/completions (stream): the stream is cut; the run completes for its tenant', async () => {
    const { gated, server, revoke, runs } = await revokable();
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
      body: JSON.stringify({ model: 'bridle:assistant', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    await gated.started;
    revoke();
    const text = await readToEnd(response);
    expect(text).not.toContain('[DONE]');
    gated.release();
    await waitFor(async () => (await runs())[0]?.status === 'completed');
    // The server goes on serving the others.
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) })).status).toBe(200);
  });
});
