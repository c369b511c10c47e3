import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@bridle/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { noteTool } from './durable-helpers';
import { type Json, postJson, startTestServer } from './helpers';
import { findNode22, runNode22 } from './node22';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';
import { lookupTool, uiModel } from './ui-helpers';

const DRIVER = fileURLToPath(new URL('./fixtures/ui-chat-driver.mjs', import.meta.url));

type Part = {
  type: string;
  text?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  toolCallId?: string;
  errorText?: string;
  approval?: { id: string };
};
type Result = { message?: { role: string; parts: Part[] }; error?: string; streamErrors?: string[] };

let node22: string | undefined;
beforeAll(async () => {
  node22 = await findNode22();
  if (!node22) {
    const message = 'SKIPPED useChat protocol tests: Node 22 (npx -y node@22) is not available here; ai 7 needs it.';
    if (process.env.CI === 'true') throw new Error(message);
    console.warn(message);
  }
}, 180_000);

async function drive(input: object): Promise<Result[]> {
  const out = await runNode22(node22 as string, DRIVER, [JSON.stringify(input)]);
  return (JSON.parse(out) as { results: Result[] }).results;
}

const visible = (parts: Part[]) => parts.filter((part) => part.type !== 'step-start');

describe('POST /api/ui/chat with the ai package (DefaultChatTransport, readUIMessageStream)', () => {
  it('streams text, keeps the session server-side, and shows tool calls with input and output', async (context) => {
    if (!node22) return context.skip();
    const { tool } = noteTool();
    const server = await startTestServer({ model: uiModel(), tools: [tool, lookupTool] });
    const results = await drive({
      url: server.url,
      chatId: 'chat-1',
      steps: [{ say: 'hello' }, { say: 'look color' }],
    });
    expect(results[0]?.error).toBeUndefined();
    expect(visible(results[0]?.message?.parts ?? [])).toEqual([{ type: 'text', text: 'echo: hello', state: 'done' }]);
    const second = visible(results[1]?.message?.parts ?? []);
    expect(second).toEqual([
      { type: 'text', text: 'Looking it up.', state: 'done' },
      expect.objectContaining({
        type: 'tool-lookup',
        toolCallId: 'look-color',
        state: 'output-available',
        input: { key: 'color' },
        output: 'value of color',
      }),
      { type: 'text', text: 'done: value of color', state: 'done' },
    ]);
    // The chat is one Bridle session holding both turns (the client's copy of history is not what ran).
    const sessions = (await (await fetch(`${server.url}/api/sessions`)).json()) as Json;
    expect(sessions.sessions).toHaveLength(1);
    const session = (await (await fetch(`${server.url}/api/sessions/${sessions.sessions[0].id}`)).json()) as Json;
    expect(session.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('asks approval as the SDK tool-approval parts; the answer through the same route resumes the paused run', async (context) => {
    if (!node22) return context.skip();
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: uiModel(), tools: [tool] });
    const results = await drive({
      url: server.url,
      chatId: 'chat-2',
      steps: [{ say: 'note milk' }, { approve: true }],
    });
    const asked = visible(results[0]?.message?.parts ?? []);
    expect(asked).toEqual([
      expect.objectContaining({
        type: 'tool-write_note',
        toolCallId: 'call-milk',
        state: 'approval-requested',
        input: { text: 'milk' },
        approval: { id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      }),
    ]);
    expect(written).toEqual(['milk']);
    const answered = visible(results[1]?.message?.parts ?? []);
    expect(answered[0]).toEqual(
      expect.objectContaining({ type: 'tool-write_note', state: 'output-available', output: 'wrote milk' }),
    );
    expect(answered.at(-1)).toEqual({ type: 'text', text: 'done: wrote milk', state: 'done' });
  });

  it('a denial shows as output-denied; the model is told', async (context) => {
    if (!node22) return context.skip();
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: uiModel(), tools: [tool] });
    const results = await drive({
      url: server.url,
      chatId: 'chat-3',
      steps: [{ say: 'note eggs' }, { approve: false }],
    });
    const answered = visible(results[1]?.message?.parts ?? []);
    expect(answered[0]).toEqual(expect.objectContaining({ type: 'tool-write_note', state: 'output-denied' }));
    expect(answered.at(-1)?.text).toMatch(/^done: Denied/);
    expect(written).toEqual([]);
  });

  it('an answer made on another pause is 409 and runs nothing; a failed run is an error chunk', async (context) => {
    if (!node22) return context.skip();
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: uiModel(), tools: [tool] });
    const results = await drive({
      url: server.url,
      chatId: 'chat-4',
      steps: [{ say: 'note tea' }, { approve: true, approvalId: 'sha256:stale' }],
    });
    expect(results[1]?.error).toContain('the decision was made on another pause');
    expect(written).toEqual([]);
    const failed = await drive({ url: server.url, chatId: 'chat-5', steps: [{ say: 'fail' }] });
    // useChat's onError hears it (the model's own message stays in the server log).
    expect(failed[0]?.streamErrors).toEqual([
      'The run ended model_error: The model failed with an unexpected error: the details are in the server log.',
    ]);
  });
});

/** Reads a raw UI message stream answer. */
async function rawChat(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/api/ui/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('POST /api/ui/chat: protocol, bad input, tenants', () => {
  const say = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] });

  it('answers the v1 UI message stream: header, data frames, [DONE]', async () => {
    const server = await startTestServer({ model: uiModel() });
    const answer = await rawChat(server.url, { id: 'c', messages: [say('hi')], trigger: 'submit-message' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const frames = answer.text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => frame.slice(6));
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame) as { type: string; delta?: string });
    expect(
      chunks
        .filter((chunk) => chunk.type === 'text-delta')
        .map((chunk) => chunk.delta)
        .join(''),
    ).toBe('echo: hi');
    const types = chunks.map((chunk) => chunk.type).filter((type, index, all) => type !== all[index - 1]);
    expect(types).toEqual(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'finish']);
  });

  it('refuses malformed messages with a 400 naming the problem, and runs nothing', async () => {
    let calls = 0;
    const model = scriptedModel(() => {
      calls++;
      return { content: 'x' };
    });
    const server = await startTestServer({ model });
    const cases: [unknown, string][] = [
      [{ id: 'c', messages: [] }, 'messages must NOT have fewer than 1 items'],
      [{ id: 'c' }, 'body is missing the required property "messages"'],
      [{ id: 'c', messages: [{ role: 'user', parts: [{ type: 'file', url: 'x' }] }] }, 'has type "file"'],
      [{ id: 'c', messages: [{ role: 'user', parts: [] }] }, 'has no text'],
      [{ id: 'c', messages: [{ role: 'robot', parts: [] }] }, 'role must be equal to one of the allowed values'],
      [
        { id: 'c', messages: [say('hi')], trigger: 'regenerate-message' },
        'trigger "regenerate-message" is not supported',
      ],
      [{ id: 'c', messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] }, 'answers no approval'],
    ];
    for (const [body, message] of cases) {
      const answer = await postJson(`${server.url}/api/ui/chat`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(message);
    }
    expect(calls).toBe(0);
  });

  it('a new message while a run waits for approval is 409 session_busy; answering a chat with no pause is 409', async () => {
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: uiModel(), tools: [tool] });
    const first = await rawChat(server.url, { id: 'busy', messages: [say('note x')] });
    expect(first.status).toBe(200);
    const assistant = {
      id: 'a1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-write_note',
          toolCallId: 'call-x',
          state: 'approval-responded',
          input: { text: 'x' },
          approval: { id: 'sha256:any', approved: true },
        },
      ],
    };
    const next = await postJson(`${server.url}/api/ui/chat`, {
      id: 'busy',
      messages: [say('note x'), assistant, say('hello?')],
    });
    expect(next.status).toBe(409);
    expect(next.body.error.code).toBe('session_busy');
    expect(next.body.error.message).toContain('answer its approval requests first');
    const calm = await rawChat(server.url, { id: 'calm', messages: [say('hi')] });
    expect(calm.status).toBe(200);
    const nothing = await postJson(`${server.url}/api/ui/chat`, { id: 'calm', messages: [say('hi'), assistant] });
    expect(nothing.status).toBe(409);
    expect(nothing.body.error.code).toBe('approval_not_pending');
    expect(written).toEqual([]);
  });

  it("another tenant's chat id is 404 like an unknown one; approving needs the approve scope", async () => {
    const { tool } = noteTool();
    const reader = { ...KEYS.acme, name: 'acme-chat-only', scopes: ['chat'], secret: 'acme-chat-only-0123456789' };
    const file = writeKeysFile([KEYS.acme, KEYS.globex, reader]);
    const server = await startTestServer({ model: uiModel(), tools: [tool], env: { BRIDLE_API_KEYS_FILE: file } });
    const first = await rawChat(server.url, { id: 'shared', messages: [say('note x')] }, bearer(KEYS.acme));
    expect(first.status).toBe(200);
    const approvalId = /"approvalId":"([^"]+)"/.exec(first.text)?.[1] as string;
    const answer = {
      id: 'shared',
      messages: [
        say('note x'),
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            {
              type: 'tool-write_note',
              toolCallId: 'call-x',
              state: 'approval-responded',
              input: { text: 'x' },
              approval: { id: approvalId, approved: true },
            },
          ],
        },
      ],
    };
    const foreign = await postJson(`${server.url}/api/ui/chat`, answer, bearer(KEYS.globex));
    const unknown = await postJson(`${server.url}/api/ui/chat`, { ...answer, id: 'never-seen' }, bearer(KEYS.globex));
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error.message).toBe(unknown.body.error.message.replace('never-seen', 'shared'));
    const noScope = await postJson(`${server.url}/api/ui/chat`, answer, bearer(reader));
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toContain('"approve"');
    const decided = await rawChat(server.url, answer, bearer(KEYS.acme));
    expect(decided.status).toBe(200);
    expect(decided.text).toContain('"type":"tool-output-available"');
    expect(decided.text).toContain('"finishReason":"stop"');
  });
});
