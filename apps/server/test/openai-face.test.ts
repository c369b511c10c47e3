import { ProviderError, type Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError } from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { gatedModel, startTestServer, type TestServer } from './helpers';

const TOKEN = 'a-test-token-0123456789abcdef';

/** The official SDK pointed at the server's /v1 face, without retries (so failures show at once). */
function client(server: TestServer, apiKey = TOKEN) {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
}

/** A step that calls the calculator (its text must never reach a /v1 client), then the final answer. */
function toolThenAnswer(options: { stream?: boolean } = {}) {
  return scriptedModel(
    [
      {
        content: 'Let me compute that.',
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '6*7' } }],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { content: 'It is 42.', usage: { inputTokens: 20, outputTokens: 3 } },
    ],
    { stream: options.stream ?? false },
  );
}

async function readyRuns(server: TestServer): Promise<number> {
  const response = await fetch(`${server.url}/ready`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await response.json()) as { activeRuns: number }).activeRuns;
}

describe('GET /v1/models', () => {
  it('lists the agents as bridle:<skill>, and retrieves one', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    const models = [];
    for await (const model of client(server).models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(['bridle:assistant', 'bridle:analyst']);
    expect(models[0]).toMatchObject({ object: 'model', owned_by: 'bridle', created: expect.any(Number) });
    expect(await client(server).models.retrieve('bridle:analyst')).toMatchObject({ id: 'bridle:analyst' });
    await expect(client(server).models.retrieve('gpt-4o')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a wrong token with the SDK AuthenticationError', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    const error = await client(server, 'wrong-token')
      .models.list()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as AuthenticationError).code).toBe('invalid_api_key');
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers with the final step text only, usage summed over the run', async () => {
    const model = toolThenAnswer();
    const server = await startTestServer({ model, apiToken: TOKEN });
    const completion = await client(server).chat.completions.create({
      model: 'bridle:assistant',
      messages: [
        { role: 'system', content: 'Answer tersely.' },
        { role: 'user', content: 'What is 6*7?' },
      ],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'bridle:assistant',
      choices: [{ index: 0, message: { role: 'assistant', content: 'It is 42.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    // The agent used its own tool; the client's system message joined the agent's instructions.
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'c1' });
    expect(model.requests[0]?.system).toMatch(/## Instructions from the client\n\nAnswer tersely\.$/);
    expect(model.requests[0]?.messages).toEqual([{ role: 'user', content: 'What is 6*7?' }]);
  });

  it('streams only the final step, then [DONE]; include_usage adds the summed usage', async () => {
    const server = await startTestServer({ model: toolThenAnswer({ stream: true }), apiToken: TOKEN });
    const stream = await client(server).chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'What is 6*7?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('It is 42.');
    expect(chunks.filter((chunk) => (chunk.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 30, completion_tokens: 7 } });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it('says finish_reason length when the answer was cut by the output limit, streamed or not', async () => {
    const cut = (stream: boolean) =>
      scriptedModel([{ content: 'It is 4', finishReason: 'length', usage: { inputTokens: 5, outputTokens: 2 } }], {
        stream,
      });
    const server = await startTestServer({ model: cut(false), apiToken: TOKEN });
    const completion = await client(server).chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'What is 6*7?' }],
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'It is 4' }, finish_reason: 'length' });
    const streamed = await startTestServer({ model: cut(true), apiToken: TOKEN });
    const chunks = [];
    for await (const chunk of await client(streamed).chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'What is 6*7?' }],
      stream: true,
    }))
      chunks.push(chunk);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it('answers an unknown model with NotFoundError, code model_not_found, in the OpenAI error shape', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    const error = (await client(server)
      .chat.completions.create({ model: 'bridle:nope', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('"bridle:assistant", "bridle:analyst"');
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({
      error: {
        message: expect.stringContaining('The model "gpt-4o" does not exist'),
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    });
  });

  it('refuses a wrong token (AuthenticationError) before reading the body', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    const error = await client(server, 'sk-wrong')
      .chat.completions.create({ model: 'bridle:assistant', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('refuses what the agent cannot take: images, client tools, tool messages, n > 1 (BadRequestError)', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    const openai = client(server);
    const attempts: [Parameters<typeof openai.chat.completions.create>[0], string][] = [
      [
        {
          model: 'bridle:assistant',
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.example/a.png' } }] }],
        },
        'messages[0].content[0] is of type "image_url": this server takes text only',
      ],
      [
        {
          model: 'bridle:assistant',
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
        },
        'tools are not accepted: the agent runs its own tools',
      ],
      [
        {
          model: 'bridle:assistant',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'a', content: 'y' },
          ],
        },
        'messages[1].role is "tool"',
      ],
      [{ model: 'bridle:assistant', messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n must be 1'],
      [
        {
          model: 'bridle:assistant',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'assistant', content: 'y' },
          ],
        },
        'The last message of messages must be the user',
      ],
      [{ model: 'bridle:assistant', messages: [] }, 'body.messages must NOT have fewer than 1 items'],
    ];
    for (const [body, message] of attempts) {
      const error = (await openai.chat.completions.create(body).catch((caught: unknown) => caught)) as APIError;
      expect([message, error]).toEqual([message, expect.any(BadRequestError)]);
      expect(error.message).toContain(message);
    }
  });

  it('applies the server bounds: a prompt over BRIDLE_MAX_PROMPT_CHARS is a 413', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN, maxPromptChars: 10 });
    const error = (await client(server)
      .chat.completions.create({ model: 'bridle:assistant', messages: [{ role: 'user', content: 'x'.repeat(11) }] })
      .catch((caught: unknown) => caught)) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(413);
    expect(error.message).toContain('BRIDLE_MAX_PROMPT_CHARS=10');
  });

  it('reports a failed run as an error: InternalServerError (502) JSON, an error event when streaming', async () => {
    const failing = () =>
      scriptedModel([new ProviderError({ provider: 'test', code: 'bad_request', message: 'upstream said no' })], {
        stream: true,
      });
    const server = await startTestServer({ model: failing(), apiToken: TOKEN });
    const error = (await client(server)
      .chat.completions.create({ model: 'bridle:assistant', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as APIError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.message).toContain("The agent's run ended with status model_error: upstream said no");

    const streaming = await startTestServer({ model: failing(), apiToken: TOKEN });
    const stream = await client(streaming).chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const streamed = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(APIError);
    expect((streamed as APIError).message).toContain('upstream said no');
  });

  it('denies tools that require approval (nobody can approve on /v1), even when /api approves them', async () => {
    const execute = vi.fn(() => 'deleted');
    const dangerous: Tool = {
      name: 'delete_everything',
      description: 'Deletes everything.',
      parameters: { type: 'object', properties: {} },
      requiresApproval: true,
      execute,
    };
    const model = scriptedModel((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { content: `tool said: ${request.messages.at(-1)?.content}` }
        : { content: '', toolCalls: [{ id: 'd1', name: 'delete_everything', arguments: {} }] },
    );
    const server = await startTestServer({
      model,
      apiToken: TOKEN,
      tools: [dangerous],
      agent: { approve: () => true },
    });
    const completion = await client(server).chat.completions.create({
      model: 'bridle:assistant',
      messages: [{ role: 'user', content: 'clean up' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/^tool said: Denied: delete_everything requires approval/);
    expect(execute).not.toHaveBeenCalled();
    // The same server's /api runs use its approve hook.
    const api = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'clean up' }),
    });
    expect(await api.json()).toMatchObject({ answer: 'tool said: deleted' });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('aborts the run when the client drops the stream (no run left behind)', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, apiToken: TOKEN });
    const controller = new AbortController();
    const stream = await client(server).chat.completions.create(
      { model: 'bridle:assistant', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: controller.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    await gated.started;
    expect(await readyRuns(server)).toBe(1);
    controller.abort();
    expect(String(await gated.aborted)).toContain('the client disconnected');
    await vi.waitFor(async () => expect(await readyRuns(server)).toBe(0), { timeout: 10_000, interval: 20 });
  });
});

describe('POST /v1/responses', () => {
  it('answers with the final step text only (output_text), usage summed', async () => {
    const model = toolThenAnswer();
    const server = await startTestServer({ model, apiToken: TOKEN });
    const response = await client(server).responses.create({
      model: 'bridle:assistant',
      input: 'What is 6*7?',
      instructions: 'Answer tersely.',
    });
    expect(response.output_text).toBe('It is 42.');
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'bridle:assistant',
      usage: { input_tokens: 30, output_tokens: 7, total_tokens: 37 },
    });
    expect(response.output).toHaveLength(1);
    expect(model.requests[0]?.system).toMatch(/Answer tersely\.$/);
  });

  it('takes input as messages with text parts', async () => {
    const model = toolThenAnswer();
    const server = await startTestServer({ model, apiToken: TOKEN });
    const response = await client(server).responses.create({
      model: 'bridle:analyst',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: 'What is 6*7?' },
      ],
    });
    expect(response.output_text).toBe('It is 42.');
    expect(model.requests[0]?.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: 'What is 6*7?' },
    ]);
  });

  it('streams the Responses events of the final step only, ending with response.completed', async () => {
    const server = await startTestServer({ model: toolThenAnswer({ stream: true }), apiToken: TOKEN });
    const stream = await client(server).responses.create({
      model: 'bridle:assistant',
      input: 'What is 6*7?',
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = [...new Set(events.map((event) => event.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas.join('')).toBe('It is 42.');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const completed = events.at(-1);
    expect(completed?.type === 'response.completed' && completed.response.usage).toMatchObject({
      input_tokens: 30,
      output_tokens: 7,
    });
  });

  it('an answer cut by the output limit is incomplete (max_output_tokens), streamed or not', async () => {
    const cut = (stream: boolean) =>
      scriptedModel([{ content: 'It is 4', finishReason: 'length', usage: { inputTokens: 5, outputTokens: 2 } }], {
        stream,
      });
    const server = await startTestServer({ model: cut(false), apiToken: TOKEN });
    const response = await client(server).responses.create({ model: 'bridle:assistant', input: 'What is 6*7?' });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(response.output_text).toBe('It is 4');
    const streamed = await startTestServer({ model: cut(true), apiToken: TOKEN });
    const events = [];
    for await (const event of await client(streamed).responses.create({
      model: 'bridle:assistant',
      input: 'What is 6*7?',
      stream: true,
    }))
      events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' && last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { input_tokens: 5, output_tokens: 2 },
    });
  });

  it('answers an unknown model with NotFoundError and a wrong token with AuthenticationError', async () => {
    const server = await startTestServer({ model: toolThenAnswer(), apiToken: TOKEN });
    await expect(client(server).responses.create({ model: 'gpt-4o', input: 'x' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      client(server, 'sk-wrong').responses.create({ model: 'bridle:assistant', input: 'x' }),
    ).rejects.toBeInstanceOf(AuthenticationError);
    await expect(
      client(server).responses.create({ model: 'bridle:assistant', input: 'x', previous_response_id: 'resp_1' }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('aborts the run when the client drops the stream', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model, apiToken: TOKEN });
    const controller = new AbortController();
    const stream = await client(server).responses.create(
      { model: 'bridle:assistant', input: 'x', stream: true },
      { signal: controller.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe('response.created');
    await gated.started;
    controller.abort();
    expect(String(await gated.aborted)).toContain('the client disconnected');
    await vi.waitFor(async () => expect(await readyRuns(server)).toBe(0), { timeout: 10_000, interval: 20 });
  });
});
