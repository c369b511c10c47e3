import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Message, type Part, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { RunEvent } from '@bridle/protocol';
import { assistantSkill, defineSkill } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServerOptions } from '../src/index';
import { type Json, startTestServer } from './helpers';
import { findNode22, runNode22 } from './node22';
import {
  dropPrefix,
  dropSchema,
  newPrefix,
  newSchemaStoreUrl,
  REDIS_URL,
  serviceSuite,
  startWorker,
  type WorkerProcess,
} from './services';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const suite = await serviceSuite('useChat and A2A on queue workers (Redis, Postgres)');

const DRIVER = fileURLToPath(new URL('./fixtures/ui-chat-driver.mjs', import.meta.url));

type UiPart = { type: string; text?: string; state?: string; output?: unknown; approval?: { id: string } };
type UiResult = { message?: { role: string; parts: UiPart[] }; error?: string; streamErrors?: string[] };

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

const visible = (parts: UiPart[] = []) => parts.filter((part) => part.type !== 'step-start');

/** An official SDK client (JSON-RPC, A2A 1.0) of the agent whose card is at `cardPath`, with acme's key. */
async function a2aClient(url: string, cardPath?: string) {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(KEYS.acme) } });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(url, cardPath);
}

const part = (content: Part['content'], mediaType: string): Part => ({
  content,
  metadata: undefined,
  filename: '',
  mediaType,
});
const text = (value: string) => part({ $case: 'text', value }, 'text/plain');
const data = (value: Record<string, unknown>) => part({ $case: 'data', value }, 'application/json');

function userMessage(parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

function answerOf(task: Task): string | undefined {
  const content = task.artifacts.find((artifact) => artifact.artifactId === 'answer')?.parts[0]?.content;
  return content?.$case === 'text' ? content.value : undefined;
}

// One worker process (test/fixtures/queue-worker.ts) and servers on one Redis and one Postgres schema: the
// protocol faces enqueue their turns, the worker runs them, the servers stream the events back from Redis.
suite('useChat and A2A with BRIDLE_REDIS_URL: turns run on a worker', { timeout: 120_000 }, () => {
  const prefix = newPrefix();
  const { schema, url: storeUrl } = newSchemaStoreUrl();
  const keysFile = writeKeysFile([KEYS.acme]);
  let worker: WorkerProcess;
  let node22: string | undefined;
  const options: ServerOptions = {
    store: storeUrl,
    redis: REDIS_URL,
    queuePrefix: prefix,
    modelId: 'test:echo',
    env: { BRIDLE_API_KEYS_FILE: keysFile },
    // The server names its skills (its A2A agents); the worker runs them with its own tools and models.
    skills: [
      assistantSkill(),
      defineSkill({ name: 'guarded', description: 'Wipes the scratch folder.', instructions: 'Wipe when asked.' }),
      defineSkill({ name: 'slow', description: 'Answers in 3 s.', instructions: 'Take your time.' }),
    ],
  };
  const pid = () => String(worker.child.pid);

  async function runStart(runId: string): Promise<RunEvent | undefined> {
    const store = await openStore(storeUrl);
    try {
      return ((await store.readRun(runId))?.events ?? []).find((event: RunEvent) => event.type === 'run_start');
    } finally {
      await store.close();
    }
  }

  async function drive(input: object): Promise<UiResult[]> {
    const out = await runNode22(node22 as string, DRIVER, [JSON.stringify(input)]);
    return (JSON.parse(out) as { results: UiResult[] }).results;
  }

  beforeAll(async () => {
    worker = startWorker(prefix, storeUrl);
    node22 = await findNode22();
    if (!node22) {
      const message =
        'SKIPPED useChat on queue workers: Node 22 (npx -y node@22) is not available here; ai 7 needs it.';
      if (process.env.CI === 'true') throw new Error(message);
      console.warn(message);
    }
    await worker.ready;
  }, 180_000);

  afterAll(async () => {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await dropPrefix(prefix);
    await dropSchema(schema);
  }, 60_000);

  it('useChat: a text answer streamed from the worker, and the chat continued as one session', async (context) => {
    if (!node22) return context.skip();
    const server = await startTestServer(options);
    const results = await drive({
      url: server.url,
      token: KEYS.acme.secret,
      chatId: 'queued-1',
      steps: [{ say: 'hello' }, { say: 'again' }],
    });
    expect(results.map((result) => result.error ?? result.streamErrors)).toEqual([undefined, undefined]);
    expect(visible(results[0]?.message?.parts)).toEqual([
      { type: 'text', text: `${pid()} heard 1: hello`, state: 'done' },
    ]);
    // The worker continued the session the server saved: it heard both prompts.
    expect(visible(results[1]?.message?.parts)).toEqual([
      { type: 'text', text: `${pid()} heard 2: again`, state: 'done' },
    ]);
    const sessions = (await (await fetch(`${server.url}/api/sessions`, { headers: bearer(KEYS.acme) })).json()) as Json;
    expect(sessions.sessions).toHaveLength(1);
    const sessionId = sessions.sessions[0].id as string;
    const session = (await (
      await fetch(`${server.url}/api/sessions/${sessionId}`, { headers: bearer(KEYS.acme) })
    ).json()) as Json;
    expect(session.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const url = `${server.url}/api/runs?sessionId=${sessionId}`;
    const runs = (await (await fetch(url, { headers: bearer(KEYS.acme) })).json()) as Json;
    expect(runs.runs).toHaveLength(2);
    // The jobs carried the caller's tenant and key name: the worker journaled them.
    for (const run of runs.runs) expect(await runStart(run.runId)).toMatchObject({ tenant: 'acme', by: 'acme-app' });
  });

  it('useChat: a tool approval answered through the route resumes the paused run on the worker', async (context) => {
    if (!node22) return context.skip();
    const server = await startTestServer(options);
    const results = await drive({
      url: server.url,
      token: KEYS.acme.secret,
      skill: 'guarded',
      chatId: 'queued-2',
      steps: [{ say: 'clean up' }, { approve: true }],
    });
    expect(results[0]?.error).toBeUndefined();
    expect(visible(results[0]?.message?.parts)).toEqual([
      expect.objectContaining({
        type: 'tool-wipe',
        toolCallId: 'w1',
        state: 'approval-requested',
        approval: { id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      }),
    ]);
    expect(results[1]?.error).toBeUndefined();
    const answered = visible(results[1]?.message?.parts);
    expect(answered[0]).toEqual(
      expect.objectContaining({ type: 'tool-wipe', state: 'output-available', output: 'done' }),
    );
    expect(answered.at(-1)).toEqual({ type: 'text', text: `${pid()} wiped: done`, state: 'done' });
  });

  it('A2A message/send runs a task on the worker, and its context continues the conversation', async () => {
    const server = await startTestServer(options);
    const client = await a2aClient(server.url);
    const first = (await client.sendMessage(send(userMessage([text('hello')])))) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(first)).toBe(`${pid()} heard 1: hello`);
    expect(first.metadata?.bridle).toEqual({
      runId: first.id,
      status: 'completed',
      usage: { inputTokens: 3, outputTokens: 4 },
      steps: 1,
    });
    expect(await runStart(first.id)).toMatchObject({ tenant: 'acme', by: 'acme-app' });
    const second = (await client.sendMessage(
      send(userMessage([text('more')], { contextId: first.contextId })),
    )) as Task;
    expect(second.contextId).toBe(first.contextId);
    expect(answerOf(second)).toBe(`${pid()} heard 2: more`);
  });

  it("A2A message/stream streams the worker's events: the task, text deltas, the answer and the final status", async () => {
    const server = await startTestServer(options);
    const client = await a2aClient(server.url);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage([text('stream it')])))) events.push(event);
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases.slice(-2)).toEqual(['artifactUpdate', 'statusUpdate']);
    const deltas = events.flatMap((event) => {
      const payload = event.payload;
      if (payload?.$case !== 'statusUpdate' || payload.value.metadata?.bridle?.event !== 'text_delta') return [];
      const content = payload.value.status?.message?.parts[0]?.content;
      return content?.$case === 'text' ? [content.value] : [];
    });
    expect(deltas.join('')).toBe(`${pid()} heard 1: stream it`);
    const final = events.at(-1)?.payload;
    expect(final?.$case === 'statusUpdate' && final.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('A2A: a paused run is input-required; approvals in a message of the task resume it on the worker', async () => {
    const server = await startTestServer(options);
    const client = await a2aClient(server.url, 'a2a/skills/guarded/agent-card.json');
    const paused = (await client.sendMessage(send(userMessage([text('clean up')])))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = paused.status?.message?.parts.find((candidate) => candidate.content?.$case === 'data')?.content;
    const pending = (asked?.$case === 'data' ? asked.value.pendingApprovals : []) as {
      callId: string;
      digest: string;
    }[];
    expect(pending).toEqual([{ callId: 'w1', name: 'wipe', arguments: {}, digest: expect.stringMatching(/^sha256:/) }]);
    const call = pending[0] as { callId: string; digest: string };
    const events: StreamResponse[] = [];
    const answer = userMessage([data({ approvals: { w1: { approved: true, digest: call.digest } } })], {
      taskId: paused.id,
    });
    for await (const event of client.sendMessageStream(send(answer))) events.push(event);
    // The resumed segment's events only: the wipe's result, then the answer.
    const tools = events.flatMap((event) => {
      const payload = event.payload;
      return payload?.$case === 'statusUpdate' && payload.value.metadata?.bridle?.event === 'tool_end'
        ? [payload.value.status?.message?.parts[0]?.content]
        : [];
    });
    expect(tools).toEqual([{ $case: 'data', value: { callId: 'w1', name: 'wipe', isError: false, result: 'done' } }]);
    const final = events.at(-1)?.payload;
    expect(final?.$case === 'statusUpdate' && final.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const task = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe(`${pid()} wiped: done`);
  });

  it('useChat: a key revoked while its stream is open ends the stream; the run completes on the worker', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.acmeReader]);
    const server = await startTestServer({ ...options, env: { BRIDLE_API_KEYS_FILE: file } });
    // Skill `slow`: the worker's model call takes 3 s, so the key is revoked while the run goes on.
    const response = await fetch(`${server.url}/api/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
      body: JSON.stringify({
        id: 'queued-revoked',
        skill: 'slow',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'keep going' }] }],
      }),
    });
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('x-session-id') as string;
    writeKeysFile([KEYS.acmeReader], {}, file);
    const text = await readToEnd(response);
    expect(text).toContain('"type":"start"');
    expect(text).not.toContain('"type":"finish"');
    // The run goes on for its tenant: its answer lands in the session, which the tenant's other key reads.
    const last = async () => {
      const session = await fetch(`${server.url}/api/sessions/${sessionId}`, { headers: bearer(KEYS.acmeReader) });
      return ((await session.json()) as Json).messages?.at(-1);
    };
    await expect.poll(last, { timeout: 20_000, interval: 100 }).toEqual({
      role: 'assistant',
      content: `${pid()} heard 1: keep going`,
    });
  });

  it('A2A tasks/cancel stops a task running on the worker: its stream ends canceled', async () => {
    const server = await startTestServer(options);
    const client = await a2aClient(server.url, 'a2a/skills/slow/agent-card.json');
    const events: StreamResponse[] = [];
    const streaming = (async () => {
      for await (const event of client.sendMessageStream(send(userMessage([text('wait')])))) events.push(event);
    })();
    // The task event comes with the run's first event from the worker (its model call then takes 3 s).
    await expect.poll(() => events.length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    const first = events[0]?.payload;
    const taskId = first?.$case === 'task' ? first.value.id : '';
    expect(taskId).not.toBe('');
    await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    await streaming;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a turn the workers refuse (a skill they do not offer) is a 502 naming their reason; so is the A2A call', async () => {
    const server = await startTestServer({
      ...options,
      skills: [
        ...(options.skills ?? []),
        defineSkill({ name: 'absent', description: 'Not on the workers.', instructions: 'None.' }),
      ],
    });
    const refused = await fetch(`${server.url}/api/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.acme) },
      body: JSON.stringify({
        id: 'queued-refused',
        skill: 'absent',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      }),
    });
    expect(refused.status).toBe(502);
    const body = (await refused.json()) as Json;
    expect(body.error.code).toBe('run_failed');
    expect(body.error.message).toContain('skill "absent" is not offered by this worker');
    const client = await a2aClient(server.url, 'a2a/skills/absent/agent-card.json');
    await expect(client.sendMessage(send(userMessage([text('hello')])))).rejects.toThrow(
      'skill "absent" is not offered by this worker',
    );
  });

  it("A2A: the job carries the tenant's quotas; the worker stops the run at tokensPerDay", async () => {
    const file = writeKeysFile([KEYS.globex], { globex: { tokensPerDay: 1500 } });
    const ticking = defineSkill({ name: 'ticking', description: 'Ticks.', instructions: 'Tick.' });
    const server = await startTestServer({
      ...options,
      env: { BRIDLE_API_KEYS_FILE: file },
      skills: [...(options.skills ?? []), ticking],
    });
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(KEYS.globex) } });
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(server.url, 'a2a/skills/ticking/agent-card.json');
    // Each `ticking` call uses 1000 tokens and never answers (maxSteps 10 on the worker): the quota ends it.
    const task = (await client.sendMessage(send(userMessage([text('tick')])))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.metadata?.bridle).toMatchObject({ status: 'budget_limit' });
    const why = task.status?.message?.parts[0]?.content;
    expect(why?.$case === 'text' ? why.value : '').toContain(
      'Tenant globex reached its quota tokensPerDay (1500 tokens;',
    );
    expect(await runStart(task.id)).toMatchObject({ tenant: 'globex', by: 'globex-app' });
  });
});
