import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool } from './durable-helpers';
import { gatedModel, type Json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, type TestKey, writeKeysFile } from './tenant-helpers';

/** An official SDK client (JSON-RPC, A2A 1.0) of the server's agent at `path`, sending `key`. */
async function clientOf(url: string, key?: TestKey, path?: string) {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...(key ? bearer(key) : {}) } });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(url, path);
}

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

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
  const part = task.artifacts.find((artifact) => artifact.artifactId === 'answer')?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
}

async function sendTask(client: Awaited<ReturnType<typeof clientOf>>, message: Message): Promise<Task> {
  const result = await client.sendMessage(send(message));
  expect('status' in result).toBe(true);
  return result as Task;
}

describe('A2A face with the official @a2a-js/sdk client (JSON-RPC, A2A 1.0)', () => {
  it('serves the agent card and runs a message as a task: the run id, its context (session) and answer', async () => {
    const { tool } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool] });
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities.streaming).toBe(true);
    const client = await clientOf(server.url);
    const task = await sendTask(client, userMessage([text('hello')]));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('echo: hello');
    expect(task.metadata?.bridle).toEqual({
      runId: task.id,
      status: 'completed',
      usage: { inputTokens: 2, outputTokens: 3 },
      steps: 1,
    });
    // The task is the run; its context is the session, which the next message continues.
    const run = (await (await fetch(`${server.url}/api/runs/${task.id}`)).json()) as Json;
    expect(run.sessionId).toBe(task.contextId);
    // Journaled like /api/chat's runs: the manifest of its tools, the key's tenant.
    const start = run.events.find((event: { type: string }) => event.type === 'run_start');
    expect(start.manifest.tools.map((tool: { name: string }) => tool.name)).toContain('write_note');
    expect(start.tenant).toBe('default');
    const next = await sendTask(client, userMessage([text('again')], { contextId: task.contextId }));
    expect(next.contextId).toBe(task.contextId);
    const session = (await (await fetch(`${server.url}/api/sessions/${task.contextId}`)).json()) as Json;
    expect(session.messages).toHaveLength(4);
    const fetched = await client.getTask({ tenant: '', id: task.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(fetched)).toBe('echo: hello');
  });

  it('one agent per skill: the root card lists every skill; each skill has its own card and endpoint', async () => {
    const server = await startTestServer({ model: noteModel() });
    const root = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(root.skills.map((skill: { id: string }) => skill.id)).toEqual(['assistant', 'analyst']);
    const card = (await (await fetch(`${server.url}/a2a/skills/analyst/agent-card.json`)).json()) as Json;
    expect(card.name).toBe('Bridle agent: analyst');
    expect(card.supportedInterfaces[0].url).toBe(`${server.url}/a2a/skills/analyst`);
    const client = await clientOf(server.url, undefined, 'a2a/skills/analyst/agent-card.json');
    const task = await sendTask(client, userMessage([text('hello')]));
    expect(answerOf(task)).toBe('echo: hello');
    const session = (await (await fetch(`${server.url}/api/sessions/${task.contextId}`)).json()) as Json;
    expect(session.skill).toBe('analyst');
    const unknown = await fetch(`${server.url}/a2a/skills/nobody/agent-card.json`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Json).error.message).toContain('Unknown skill "nobody"');
  });

  it('streams a task: the task first, working updates with text and tool calls, the answer, the final state', async () => {
    const { tool } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool], agent: { approve: () => true } });
    const client = await clientOf(server.url);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage([text('note tea')])))) events.push(event);
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases.at(-2)).toBe('artifactUpdate');
    expect(cases.at(-1)).toBe('statusUpdate');
    const final = events.at(-1)?.payload;
    expect(final?.$case === 'statusUpdate' && final.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const tools = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate'
        ? (event.payload.value.status?.message?.parts ?? []).flatMap((part) =>
            part.content?.$case === 'data' ? [part.content.value] : [],
          )
        : [],
    );
    expect(tools).toEqual([
      { callId: 'call-tea', name: 'write_note', arguments: { text: 'tea' } },
      { callId: 'call-tea', name: 'write_note', isError: false, result: 'wrote tea' },
    ]);
    const streamed = events
      .flatMap((event) =>
        event.payload?.$case === 'statusUpdate' && event.payload.value.metadata?.bridle?.event === 'text_delta'
          ? (event.payload.value.status?.message?.parts ?? [])
          : [],
      )
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    expect(streamed).toBe('done: wrote tea');
  });

  it('a paused run is input-required; approvals in a message of the task resume it under the approval rules', async () => {
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool] });
    const client = await clientOf(server.url);
    const paused = await sendTask(client, userMessage([text('note milk')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = paused.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
    const pending = (asked?.$case === 'data' ? asked.value.pendingApprovals : []) as {
      callId: string;
      digest: string;
    }[];
    expect(pending).toEqual([
      {
        callId: 'call-milk',
        name: 'write_note',
        arguments: { text: 'milk' },
        digest: expect.stringMatching(/^sha256:/),
      },
    ]);
    // A decision made on another pause is refused, and nothing runs.
    await expect(
      client.sendMessage(
        send(
          userMessage([data({ approvals: { 'call-milk': { approved: true, digest: 'sha256:other' } } })], {
            taskId: paused.id,
          }),
        ),
      ),
    ).rejects.toThrow('the decision was made on another pause');
    await expect(
      client.sendMessage(send(userMessage([data({ approvals: { 'call-other': true } })], { taskId: paused.id }))),
    ).rejects.toThrow('Cannot decide call "call-other": it is not pending');
    expect(written).toEqual([]);
    const pendingCall = pending[0] as { callId: string; digest: string };
    const resumed = await sendTask(
      client,
      userMessage([data({ approvals: { [pendingCall.callId]: { approved: true, digest: pendingCall.digest } } })], {
        taskId: paused.id,
      }),
    );
    expect(resumed.id).toBe(paused.id);
    expect(resumed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(resumed)).toBe('done: wrote milk');
    expect(written).toEqual(['milk']);
    // An ended task takes no more messages.
    await expect(
      client.sendMessage(send(userMessage([data({ approvals: { 'call-milk': true } })], { taskId: paused.id }))),
    ).rejects.toThrow('is ended');
  });

  it('a context whose task waits for input takes no new prompt; approvals without a taskId are refused', async () => {
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool] });
    const client = await clientOf(server.url);
    const paused = await sendTask(client, userMessage([text('note oil')]));
    await expect(
      client.sendMessage(send(userMessage([text('hello?')], { contextId: paused.contextId }))),
    ).rejects.toThrow(`has task ${paused.id} waiting for input: answer it first`);
    await expect(client.sendMessage(send(userMessage([data({ approvals: { 'call-oil': true } })])))).rejects.toThrow(
      'Approvals answer a task waiting for input: send them with that taskId.',
    );
    await expect(client.sendMessage(send(userMessage([text('yes please')], { taskId: paused.id })))).rejects.toThrow(
      `Task ${paused.id} waits for approval: answer with a data part`,
    );
    expect(written).toEqual([]);
  });

  it('tasks/cancel ends a paused task canceled; an ended one is not cancelable', async () => {
    const { tool } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool] });
    const client = await clientOf(server.url);
    const paused = await sendTask(client, userMessage([text('note jam')]));
    const cancelled = await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: '', id: paused.id, metadata: undefined })).rejects.toThrow('has ended');
    await expect(client.getTask({ tenant: '', id: randomUUID() })).rejects.toThrow('does not exist here');
  });

  it('tasks/cancel stops a running task: its stream ends canceled', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model });
    const client = await clientOf(server.url);
    const events: StreamResponse[] = [];
    const streaming = (async () => {
      for await (const event of client.sendMessageStream(send(userMessage([text('wait')])))) events.push(event);
    })();
    await gated.started;
    // The task event is on its way to the client: wait for it (at most 10 s).
    for (let tries = 0; tries < 100 && events.length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const first = events[0]?.payload;
    const taskId = first?.$case === 'task' ? first.value.id : '';
    expect(taskId).not.toBe('');
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_CANCELED]).toContain(cancelled.status?.state);
    await streaming;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("tenant keys: another tenant's task and context are unknown; scopes per method; no key is 401", async () => {
    const reader = { ...KEYS.acmeReader };
    const file = writeKeysFile([KEYS.acme, KEYS.globex, reader]);
    const server = await startTestServer({ model: noteModel(), env: { BRIDLE_API_KEYS_FILE: file } });
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(401);
    expect(
      (await postJson(`${server.url}/a2a`, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } })).status,
    ).toBe(401);
    const acme = await clientOf(server.url, KEYS.acme);
    const globex = await clientOf(server.url, KEYS.globex);
    const task = await sendTask(acme, userMessage([text('hi')]));
    const unknownId = randomUUID();
    const failure = (id: string) =>
      globex.getTask({ tenant: '', id }).then(
        () => 'found',
        (error: Error) => error.message,
      );
    const foreign = await failure(task.id);
    const unknown = await failure(unknownId);
    expect(unknown).toContain('does not exist here');
    expect(foreign).toBe(unknown.replace(unknownId, task.id));
    await expect(globex.sendMessage(send(userMessage([text('hi')], { contextId: task.contextId })))).rejects.toThrow(
      `Context ${task.contextId} does not exist here`,
    );
    const readerClient = await clientOf(server.url, KEYS.acme);
    const readOnly = await clientOf(server.url, reader).catch((error: Error) => error);
    // The reader key cannot even read the card (scope chat), but reads tasks through JSON-RPC.
    expect(String(readOnly)).toContain('403');
    expect((await readerClient.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
    const readerAsks = await postJson(
      `${server.url}/a2a`,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
      },
      bearer(reader),
    );
    expect(readerAsks.body.error.message).toContain('lacks the scope "chat"');
    const readerReads = await postJson(
      `${server.url}/a2a`,
      { jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: task.id } },
      bearer(reader),
    );
    expect(readerReads.body.result.id).toBe(task.id);
  });
});

describe('A2A face: JSON-RPC envelopes, v0.3 names, malformed input', () => {
  it('answers the v0.3 method names (message/send, tasks/get) without the A2A-Version header', async () => {
    const server = await startTestServer({ model: noteModel() });
    const sent = await postJson(`${server.url}/a2a`, {
      jsonrpc: '2.0',
      id: 'a',
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.id).toBe('a');
    expect(sent.body.result.kind).toBe('task');
    expect(sent.body.result.status.state).toBe('completed');
    expect(sent.body.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'echo: hi' }]);
    const got = await postJson(`${server.url}/a2a`, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tasks/get',
      params: { id: sent.body.result.id },
    });
    expect(got.body.result.status.state).toBe('completed');
  });

  it('message/stream (v0.3) is SSE of JSON-RPC answers: the task, status updates, the artifact, a final status', async () => {
    const server = await startTestServer({ model: noteModel() });
    const response = await fetch(`${server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)) as Json);
    expect(frames.every((frame) => frame.jsonrpc === '2.0' && frame.id === 9)).toBe(true);
    expect(frames.map((frame) => frame.result.kind)).toEqual([
      'task',
      'status-update',
      'status-update',
      'status-update',
      'artifact-update',
      'status-update',
    ]);
    const last = frames.at(-1)?.result;
    expect(last.status.state).toBe('completed');
    expect(last.final).toBe(true);
    expect(frames.at(-2)?.result.artifact.parts).toEqual([{ kind: 'text', text: 'echo: hi' }]);
  });

  it('malformed JSON-RPC gets the JSON-RPC error codes, and nothing runs', async () => {
    let calls = 0;
    const model = scriptedModel(() => {
      calls++;
      return { content: 'x' };
    });
    const server = await startTestServer({ model });
    const raw = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    expect((await raw('{not json')).body.error.code).toBe(-32700);
    expect((await raw('[]')).body.error.code).toBe(-32600);
    expect(
      (await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/explode', params: {} }))).body.error.code,
    ).toBe(-32601);
    const noMessage = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }));
    expect(noMessage.body.error.code).toBe(-32602);
    const filePart = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'm',
            role: 'user',
            parts: [{ kind: 'file', file: { uri: 'https://x.example/a' } }],
          },
        },
      }),
    );
    expect(filePart.body.error.code).toBe(-32602);
    expect(filePart.body.error.message).toContain('this agent reads text parts');
    const v1 = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } },
      }),
      {
        'A2A-Version': '1.0',
      },
    );
    expect(v1.body.error.message).toContain('has no text');
    expect(calls).toBe(0);
  });
});
