import type { ModelRequest, RunEvent, Store, Tool } from '@bridle/protocol';
import { ConfigError, ProviderError } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, parseRateLimit, type RunQueue, type RunWorker, startRunWorker, submitAll } from '../src/index';
import { addTool, testAgent, twoStepModel } from './agents';
import { closedPort, dropPrefix, newPrefix, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('queue tests (Redis)', {});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: { store?: Store } = {}) {
  const prefix = newPrefix();
  const store = options.store ?? (await openStore('memory:'));
  const queue = await openRunQueue({ redis: REDIS_URL, prefix, backoffMs: 50 });
  cleanups.push(async () => {
    await queue.close();
    await store.close();
    await dropPrefix(prefix);
  });
  const workers: RunWorker[] = [];
  cleanups.push(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
  });
  const start = async (
    agent: Parameters<typeof startRunWorker>[0]['agent'],
    extra: Partial<Parameters<typeof startRunWorker>[0]> = {},
  ) => {
    const worker = await startRunWorker({ redis: REDIS_URL, prefix, store, agent, ...extra });
    workers.push(worker);
    return worker;
  };
  return { prefix, store, queue, start };
}

/** `add`, asking for approval, recording the arguments of each call it runs in `executed`. */
function guardedAdd(executed: unknown[]): Tool {
  return {
    ...addTool,
    requiresApproval: true,
    execute: (args) => {
      executed.push(args);
      return addTool.execute(args, {} as never);
    },
  };
}

async function eventsOf(queue: RunQueue, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of queue.follow(runId)) events.push(event);
  return events;
}

suite('@bridle/queue with Redis', () => {
  it('a worker runs an enqueued job with runAgent against the store; its events can be followed; the result is kept', async () => {
    const { queue, store, start } = await setup();
    await start(testAgent(twoStepModel()));
    const { jobId, runId } = await queue.enqueue({ prompt: 'hello', model: 'test:two-step', runId: 'run-hello' });
    expect({ jobId, runId }).toEqual({ jobId: 'run-hello', runId: 'run-hello' });
    const followed = await eventsOf(queue, runId);
    const job = await queue.settled(jobId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 1, runId: 'run-hello' });
    expect(job.result).toEqual({
      runId: 'run-hello',
      status: 'completed',
      answer: 'answer: hello',
      steps: 2,
      toolCalls: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(job.startedAt).toBeGreaterThanOrEqual(job.enqueuedAt as number);
    expect(followed.map((event) => event.type)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'model_start',
      'model_end',
      'run_end',
    ]);
    const journal = await store.readRun(runId);
    expect(journal?.status).toBe('completed');
    expect(followed).toEqual(journal?.events);
  });

  it("the kept result carries the last response's finishReason (an answer cut by the output limit reads length)", async () => {
    const { queue, start } = await setup();
    const cut = {
      id: 'test:cut',
      generate: async () => ({ content: 'an answer cut sh', finishReason: 'length' as const }),
    };
    await start(testAgent(cut));
    const { jobId } = await queue.enqueue({ prompt: 'long', model: 'test:cut', runId: 'run-cut' });
    expect((await queue.settled(jobId)).result).toEqual({
      runId: 'run-cut',
      status: 'completed',
      answer: 'an answer cut sh',
      finishReason: 'length',
      steps: 1,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });
  it('enqueueing the same runId again adds nothing: the model answers each step once', async () => {
    const { queue, start } = await setup();
    const calls: string[] = [];
    const model = twoStepModel({ latencyMs: 50, onCall: (prompt, step) => void calls.push(`${prompt}#${step}`) });
    await queue.enqueue({ prompt: 'once', model: model.id, runId: 'run-once' });
    await queue.enqueue({ prompt: 'once', model: model.id, runId: 'run-once' });
    await start(testAgent(model));
    expect((await queue.settled('run-once')).state).toBe('completed');
    await queue.enqueue({ prompt: 'once', model: model.id, runId: 'run-once' });
    expect((await queue.queue.getJobCounts('waiting', 'active', 'completed')).completed).toBe(1);
    expect(calls).toEqual(['once#1', 'once#2']);
  });

  it('a run enqueued again after its job was lost is reported from the journal, not run again', async () => {
    const { queue, store, start } = await setup();
    const calls: string[] = [];
    const model = twoStepModel({ onCall: (prompt, step) => void calls.push(`${prompt}#${step}`) });
    await start(testAgent(model));
    await queue.enqueue({ prompt: 'lost', model: model.id, runId: 'run-lost' });
    expect((await queue.settled('run-lost')).result?.answer).toBe('answer: lost');
    await queue.queue.remove('run-lost');
    expect((await queue.job('run-lost')).state).toBe('missing');
    await queue.enqueue({ prompt: 'lost', model: model.id, runId: 'run-lost' });
    const again = await queue.settled('run-lost');
    expect(again).toMatchObject({ state: 'completed', attemptsMade: 1 });
    expect(again.result).toMatchObject({ status: 'completed', answer: 'answer: lost', steps: 2 });
    expect(calls).toEqual(['lost#1', 'lost#2']);
    expect((await store.readRun('run-lost'))?.events.filter((event) => event.type === 'run_end')).toHaveLength(1);
  });

  it('refuses an oversized payload or an invalid job at enqueue, naming the problem; nothing reaches the queue', async () => {
    const prefix = newPrefix();
    const queue = await openRunQueue({ redis: REDIS_URL, prefix, maxPayloadBytes: 1000 });
    cleanups.push(async () => {
      await queue.close();
      await dropPrefix(prefix);
    });
    const big = queue.enqueue({ prompt: 'x'.repeat(2000), model: 'test:two-step', runId: 'big' });
    await expect(big).rejects.toThrow(ConfigError);
    await expect(big).rejects.toThrow(
      /^Run job for run big is 20\d\d bytes, over the queue's limit of 1000 bytes \(maxPayloadBytes\): shorten the prompt or transcript, or raise maxPayloadBytes on the producer\.$/,
    );
    await expect(queue.enqueue({ model: 'test:two-step' })).rejects.toThrow(
      'Invalid run job: the input must be exactly one of prompt (a string) or messages (an array), got undefined.',
    );
    await expect(queue.enqueue({ prompt: 'a', model: 'm', runId: 'a:b' })).rejects.toThrow(
      `Invalid run job: runId must be 1 to 128 letters, digits, '_', '.' or '-' (not only digits), got "a:b".`,
    );
    await expect(queue.enqueue({ prompt: 'a', model: 'm', apiKey: 'sk' } as never)).rejects.toThrow(
      'Invalid run job: "apiKey" must be one of prompt, messages, model, skill',
    );
    expect(await queue.queue.count()).toBe(0);
  });

  it("a job carries a cost budget: the smaller of it and the worker's own applies", async () => {
    const { queue, start } = await setup();
    const steps = twoStepModel();
    const model = {
      id: 'test:costly',
      async generate(request: ModelRequest) {
        return { ...(await steps.generate(request)), usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.5 } };
      },
    };
    await start((job) => ({
      ...testAgent(model)(job),
      budget: { maxCostUsd: job.prompt === 'worker is tighter' ? 0.25 : 10 },
    }));
    await queue.enqueue({ prompt: 'job is tighter', model: model.id, runId: 'cost-job', maxCostUsd: 0.4 });
    await queue.enqueue({ prompt: 'worker is tighter', model: model.id, runId: 'cost-worker', maxCostUsd: 5 });
    await queue.enqueue({ prompt: 'room for both steps', model: model.id, runId: 'cost-roomy', maxCostUsd: 5 });
    expect((await queue.settled('cost-job')).result).toMatchObject({ status: 'budget_limit', steps: 1 });
    expect((await queue.settled('cost-worker')).result).toMatchObject({ status: 'budget_limit', steps: 1 });
    expect((await queue.settled('cost-roomy')).result).toMatchObject({ status: 'completed', steps: 2 });
    await expect(queue.enqueue({ prompt: 'a', model: 'm', maxCostUsd: 0 })).rejects.toThrow(
      'Invalid run job: maxCostUsd must be a positive number of US dollars, got number 0.',
    );
  });

  it('an approvals job resumes a paused run with its decisions; the same decisions again add nothing', async () => {
    const { queue, store, start } = await setup();
    const executed: unknown[] = [];
    const guarded = guardedAdd(executed);
    const model = twoStepModel();
    await start((job) => ({ ...testAgent(model)(job), tools: [guarded], approve: () => 'ask' as const }));
    await queue.enqueue({ prompt: 'careful', model: model.id, runId: 'ask-1' });
    const paused = await queue.settled('ask-1');
    expect(paused.result).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'c1', name: 'add', arguments: { a: 2, b: 3 } }],
    });
    expect(executed).toEqual([]);
    const fromSequence = ((await store.readRun('ask-1'))?.events.at(-1)?.sequence ?? 0) + 1;

    const decided = await queue.enqueue({ model: model.id, runId: 'ask-1', approvals: { c1: true } });
    expect(decided.jobId).toMatch(/^ask-1\.approvals-[0-9a-f]{16}$/);
    const followed: RunEvent[] = [];
    for await (const event of queue.follow('ask-1', { jobId: decided.jobId, fromSequence })) followed.push(event);
    const job = await queue.settled(decided.jobId);
    expect(job).toMatchObject({ state: 'completed', runId: 'ask-1' });
    expect(job.result).toMatchObject({ status: 'completed', answer: 'answer: careful', steps: 2, toolCalls: 1 });
    expect(executed).toEqual([{ a: 2, b: 3 }]);
    expect(followed[0]).toMatchObject({ type: 'run_start', sequence: fromSequence });
    expect(followed.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
    expect((await store.readRun('ask-1'))?.status).toBe('completed');

    // The same decisions again: the same job id, nothing added; other decisions on a run that no longer
    // waits: the job fails, naming why, and nothing runs.
    expect((await queue.enqueue({ model: model.id, runId: 'ask-1', approvals: { c1: true } })).jobId).toBe(
      decided.jobId,
    );
    const late = await queue.enqueue({ model: model.id, runId: 'ask-1', approvals: { c1: false } });
    const refused = await queue.settled(late.jobId);
    expect(refused).toMatchObject({ state: 'failed', failedCode: 'decided_elsewhere', attemptsMade: 1 });
    expect(refused.failedReason).toBe(
      'Decided elsewhere: run ask-1 is not waiting for approval (status completed): its calls were decided already. Nothing was run.',
    );
    expect(executed).toHaveLength(1);

    await expect(queue.enqueue({ model: model.id, approvals: { c1: true } })).rejects.toThrow(
      'Invalid run job: runId must be the id of the paused run the approvals decide, got undefined.',
    );
    await expect(
      queue.enqueue({ prompt: 'x', model: model.id, runId: 'ask-1', approvals: { c1: true } }),
    ).rejects.toThrow(
      "Invalid run job: the input must be absent with approvals (the paused run's transcript is in its journal)",
    );
    await expect(queue.enqueue({ model: model.id, runId: 'ask-1', approvals: { c1: 'yes' } as never })).rejects.toThrow(
      'Invalid run job: approvals must be an object of 1 to 1000 decisions by call id (true, false or { approved, digest?, by? })',
    );
    await expect(
      queue.enqueue({ model: model.id, runId: 'ask-1', approvals: { c1: { approved: true, reason: 'x' } } as never }),
    ).rejects.toThrow('Invalid run job: approvals must be an object of 1 to 1000 decisions by call id');
  });

  it('an approvals job whose call was decided on an earlier pause never applies to the call the model reused its id for', async () => {
    const { queue, start } = await setup();
    const executed: unknown[] = [];
    const guarded = guardedAdd(executed);
    // Asks add c1 (2 + 3), then add c1 again (40 + 2), then answers.
    const model = {
      id: 'test:reuse',
      async generate(request: ModelRequest) {
        const results = request.messages.filter((message) => message.role === 'tool').length;
        if (results === 2) return { content: 'answer: 42' };
        const args = results === 0 ? { a: 2, b: 3 } : { a: 40, b: 2 };
        return { content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: args }] };
      },
    };
    await start((job) => ({ ...testAgent(model)(job), tools: [guarded], approve: () => 'ask' as const }));
    await queue.enqueue({ prompt: 'careful', model: model.id, runId: 'ask-3' });
    const first = (await queue.settled('ask-3')).result as { pendingApprovals: { callId: string; digest: string }[] };
    expect(first.pendingApprovals.map((pending) => pending.callId)).toEqual(['c1']);
    const decided = await queue.enqueue({ model: model.id, runId: 'ask-3', approvals: { c1: true } });
    const second = await queue.settled(decided.jobId);
    expect(second.result).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'c1-2', name: 'add', arguments: { a: 40, b: 2 } }],
    });
    expect(executed).toEqual([{ a: 2, b: 3 }]);
    const next = (second.result as { pendingApprovals: { digest: string }[] }).pendingApprovals[0]?.digest as string;
    expect(next).not.toBe(first.pendingApprovals[0]?.digest);

    // The earlier decision arriving again (in another job id: an object decision), and one that names
    // the first pause's digest: both fail naming the call, and nothing runs.
    const repeated = await queue.enqueue({ model: model.id, runId: 'ask-3', approvals: { c1: { approved: true } } });
    const refused = await queue.settled(repeated.jobId);
    expect(refused).toMatchObject({ state: 'failed', attemptsMade: 1 });
    expect(refused.failedReason).toBe(
      'run ask-3: Cannot decide call "c1": it is not pending in run ask-3 (pending: "c1-2"). Nothing was run.',
    );
    const staleDigest = first.pendingApprovals[0]?.digest as string;
    const stale = await queue.enqueue({
      model: model.id,
      runId: 'ask-3',
      approvals: { 'c1-2': { approved: true, digest: staleDigest } },
    });
    const staleJob = await queue.settled(stale.jobId);
    expect(staleJob).toMatchObject({ state: 'failed', attemptsMade: 1 });
    expect(staleJob.failedReason).toContain('Cannot decide call "c1-2": the decision was made on another pause');
    expect(executed).toEqual([{ a: 2, b: 3 }]);

    const bound = await queue.enqueue({
      model: model.id,
      runId: 'ask-3',
      approvals: { 'c1-2': { approved: true, digest: next } },
    });
    expect((await queue.settled(bound.jobId)).result).toMatchObject({ status: 'completed', answer: 'answer: 42' });
    expect(executed).toEqual([
      { a: 2, b: 3 },
      { a: 40, b: 2 },
    ]);
  });

  it('of two approvals jobs that read the paused run at once, one resumes it and the other fails as decided_elsewhere, running nothing', async () => {
    const shared = await openStore('memory:');
    // Both jobs read the run as waiting before either resumes it: the journal must pick one.
    let holding = 0;
    let bothRead = () => {};
    const together = new Promise<void>((resolve) => (bothRead = resolve));
    const store: Store = {
      appendEvents: (runId, events) => shared.appendEvents(runId, events),
      readRun: async (runId) => {
        const run = await shared.readRun(runId);
        if (holding > 0) {
          holding -= 1;
          if (holding === 0) bothRead();
          await together;
        }
        return run;
      },
      listRuns: (query) => shared.listRuns(query),
      getSession: (id) => shared.getSession(id),
      saveSession: (session) => shared.saveSession(session),
      deleteSession: (id) => shared.deleteSession(id),
      listSessions: (query) => shared.listSessions(query),
      close: () => shared.close(),
    };
    const { queue, start } = await setup({ store });
    const executed: unknown[] = [];
    const guarded = guardedAdd(executed);
    const model = twoStepModel();
    const agent = (job: Parameters<ReturnType<typeof testAgent>>[0]) => ({
      ...testAgent(model)(job),
      tools: [guarded],
      approve: () => 'ask' as const,
    });
    await start(agent);
    await start(agent);
    await queue.enqueue({ prompt: 'careful', model: model.id, runId: 'ask-2' });
    expect((await queue.settled('ask-2')).result?.status).toBe('awaiting_approval');

    holding = 2;
    const yes = await queue.enqueue({ model: model.id, runId: 'ask-2', approvals: { c1: true } });
    const no = await queue.enqueue({ model: model.id, runId: 'ask-2', approvals: { c1: false } });
    const jobs = [await queue.settled(yes.jobId), await queue.settled(no.jobId)];
    const won = jobs.filter((job) => job.state === 'completed');
    const lost = jobs.filter((job) => job.state === 'failed');
    expect(won).toHaveLength(1);
    expect(lost).toEqual([
      expect.objectContaining({
        failedCode: 'decided_elsewhere',
        attemptsMade: 1,
        failedReason:
          'Decided elsewhere: run ask-2 was resumed by another decision at the same moment. Nothing was run.',
      }),
    ]);
    // The call ran once if the approval won, never if the denial did.
    expect(executed).toHaveLength(won[0]?.jobId === yes.jobId ? 1 : 0);
    const run = await shared.readRun('ask-2');
    expect(run?.status).toBe('completed');
    expect(run?.events.filter((event) => event.type === 'run_start')).toHaveLength(2);
  });

  it('a job for a model or skill the worker does not offer fails at once with the reason, without retries', async () => {
    const { queue, start } = await setup();
    await start(testAgent(twoStepModel()));
    await queue.enqueue({ prompt: 'a', model: 'openai-compatible:http://evil.example/v1#m', runId: 'bad-model' });
    await queue.enqueue({ prompt: 'b', model: 'test:two-step', skill: 'hacking', runId: 'bad-skill' });
    const badModel = await queue.settled('bad-model');
    expect(badModel).toMatchObject({
      state: 'failed',
      attemptsMade: 1,
      failedReason:
        'model openai-compatible:http://evil.example/v1#m is not offered by this worker (it runs test:two-step)',
    });
    expect(await queue.settled('bad-skill')).toMatchObject({
      state: 'failed',
      attemptsMade: 1,
      failedReason: 'unknown skill "hacking": this worker offers math',
    });
  });

  it('a poison job (its journal cannot be written) is tried `attempts` times, then failed with the reason', async () => {
    const memory = await openStore('memory:');
    const broken: Store = Object.assign(Object.create(null), {
      appendEvents: (runId: string, events: RunEvent[]) =>
        runId === 'poison' ? Promise.reject(new Error('disk full')) : memory.appendEvents(runId, events),
      readRun: (id: string) => memory.readRun(id),
      listRuns: (query: never) => memory.listRuns(query),
      getSession: (id: string) => memory.getSession(id),
      saveSession: (session: never) => memory.saveSession(session),
      deleteSession: (id: string) => memory.deleteSession(id),
      listSessions: (query: never) => memory.listSessions(query),
      close: () => memory.close(),
    });
    const { queue, start } = await setup({ store: broken });
    await start(testAgent(twoStepModel()));
    await queue.enqueue({ prompt: 'poison', model: 'test:two-step', runId: 'poison' });
    await queue.enqueue({ prompt: 'fine', model: 'test:two-step', runId: 'fine' });
    const poison = await queue.settled('poison');
    expect(poison).toMatchObject({ state: 'failed', attemptsMade: 3 });
    expect(poison.failedReason).toBe(
      'The journal of run poison could not be written (disk full), so the run stopped. Resume it with resumeRun({ store, runId: "poison" }) once the store works.',
    );
    expect((await queue.settled('fine')).result?.answer).toBe('answer: fine');
  });

  it('a session continues: its messages come first, and the session is saved with the run', async () => {
    const { queue, store, start } = await setup();
    const seen: number[] = [];
    const model = {
      id: 'test:echo',
      async generate(request: { messages: readonly unknown[] }) {
        seen.push(request.messages.length);
        return { content: `turn ${seen.length}` };
      },
    };
    await start(() => ({ model }));
    await queue.enqueue({ prompt: 'one', model: 'test:echo', sessionId: 's1', runId: 'turn-1' });
    await queue.settled('turn-1');
    await queue.enqueue({ prompt: 'two', model: 'test:echo', sessionId: 's1', runId: 'turn-2' });
    expect((await queue.settled('turn-2')).result?.answer).toBe('turn 2');
    expect(seen).toEqual([1, 3]);
    expect((await store.getSession('s1'))?.messages.map((message) => message.content)).toEqual([
      'one',
      'turn 1',
      'two',
      'turn 2',
    ]);
    // The runs are journaled under their session.
    expect((await store.listRuns({ sessionId: 's1' })).map((run) => run.runId).sort()).toEqual(['turn-1', 'turn-2']);
  });

  it('--rate-limit holds across workers per model id: 6 calls at 2/s span at least two windows', async () => {
    const { queue, start } = await setup();
    const times: number[] = [];
    const model = {
      id: 'test:limited',
      async generate() {
        times.push(Date.now());
        return { content: 'ok' };
      },
    };
    const rateLimit = parseRateLimit('2/s');
    expect(rateLimit).toEqual({ max: 2, durationMs: 1000 });
    await start(() => ({ model }), { rateLimit, concurrency: 3 });
    await start(() => ({ model }), { rateLimit, concurrency: 3 });
    const specs = [1, 2, 3, 4, 5, 6].map((n) => ({ prompt: `p${n}`, model: model.id, runId: `limited-${n}` }));
    await submitAll(queue, specs, { onSettled: () => {} });
    times.sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    // Calls 3 and 5 each wait for a window to pass: the 5th starts at least 2 windows after the 1st.
    expect((times[4] as number) - (times[0] as number)).toBeGreaterThanOrEqual(1900);
  });

  it('a 429 with Retry-After pauses that model on every worker until then', async () => {
    const { queue, start, prefix } = await setup();
    const calls: { prompt: string; at: number }[] = [];
    let limited = false;
    const model = {
      id: 'test:busy',
      async generate(request: { messages: readonly { content: unknown }[] }) {
        const prompt = String(request.messages[0]?.content);
        calls.push({ prompt, at: Date.now() });
        if (prompt === 'first' && !limited) {
          limited = true;
          throw new ProviderError({
            code: 'rate_limited',
            provider: 'test',
            status: 429,
            message: 'slow down',
            retryAfterMs: 1500,
          });
        }
        return { content: `ok ${prompt}` };
      },
    };
    await start(() => ({ model, retry: { maxRetries: 2, baseDelayMs: 1 } }));
    await start(() => ({ model }));
    await queue.enqueue({ prompt: 'first', model: model.id, runId: 'busy-1' });
    await expect.poll(() => calls.length, { timeout: 10_000 }).toBe(1);
    const redis = new Redis(REDIS_URL);
    const pause = await redis.pttl(`${prefix}:bridle-runs:pause:test:busy`);
    redis.disconnect();
    expect(pause).toBeGreaterThan(0);
    await queue.enqueue({ prompt: 'second', model: model.id, runId: 'busy-2' });
    expect((await queue.settled('busy-1')).result?.answer).toBe('ok first');
    expect((await queue.settled('busy-2')).result?.answer).toBe('ok second');
    const first = calls[0]?.at as number;
    for (const call of calls.slice(1)) expect(call.at - first).toBeGreaterThanOrEqual(1400);
  });

  it('close() drains: a job that outlasts the drain timeout is handed back and another worker resumes it', async () => {
    const { queue, store, start } = await setup();
    let release: (() => void) | undefined;
    const calls: string[] = [];
    const slow = twoStepModel({
      onCall: (_prompt, step) => {
        calls.push(`slow#${step}`);
        // Step 2 never answers on the first worker (it waits for an abort).
        if (step === 2)
          return new Promise<void>((resolve) => {
            release = resolve;
          });
      },
    });
    const first = await start(testAgent(slow), { drainTimeoutMs: 300 });
    await queue.enqueue({ prompt: 'long', model: slow.id, runId: 'drained' });
    await expect.poll(() => calls, { timeout: 10_000 }).toEqual(['slow#1', 'slow#2']);
    await first.close();
    release?.();
    const handedBack = await queue.job('drained');
    expect(handedBack.state).toBe('waiting');
    expect(handedBack.attemptsMade).toBe(0);
    expect((await store.readRun('drained'))?.status).toBe('running');
    const fast = twoStepModel({ onCall: (_prompt, step) => void calls.push(`fast#${step}`) });
    await start(testAgent(fast));
    const done = await queue.settled('drained');
    expect(done.result).toMatchObject({ status: 'completed', answer: 'answer: long', steps: 2 });
    // Step 1 completed on the first worker and is not asked again.
    expect(calls).toEqual(['slow#1', 'slow#2', 'fast#2']);
    const journal = await store.readRun('drained');
    expect(journal?.events.filter((event) => event.type === 'run_end')).toHaveLength(1);
  });

  it('a non-idempotent tool cut by a hand-back is not run again: the resuming worker gives it the Interrupted result', async () => {
    const { queue, store, start } = await setup();
    const charges: string[] = [];
    const charge: Tool = {
      name: 'charge',
      description: 'Charges a card (not idempotent)',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          charges.push('started');
          context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
        }),
    };
    const seen: string[] = [];
    const model = {
      id: 'test:charge',
      async generate(request: ModelRequest) {
        const result = request.messages.find((message) => message.role === 'tool');
        if (!result) return { content: '', toolCalls: [{ id: 'pay', name: 'charge', arguments: {} }] };
        seen.push(String(result.content));
        return { content: 'done' };
      },
    };
    const first = await start(() => ({ model, tools: [charge] }), { drainTimeoutMs: 200 });
    await queue.enqueue({ prompt: 'pay', model: model.id, runId: 'charged' });
    await expect.poll(() => charges, { timeout: 10_000 }).toEqual(['started']);
    await first.close();
    expect((await queue.job('charged')).state).toBe('waiting');
    await start(() => ({ model, tools: [charge] }));
    expect((await queue.settled('charged')).result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(charges).toEqual(['started']);
    expect(seen).toEqual(['Interrupted: this call may or may not have run; check before retrying']);
    expect((await store.readRun('charged'))?.events.filter((event) => event.type === 'run_end')).toHaveLength(1);
  });

  it('close() lets a job that finishes within the drain timeout complete', async () => {
    const { queue, start } = await setup();
    const model = twoStepModel({ latencyMs: 300 });
    const worker = await start(testAgent(model), { drainTimeoutMs: 30_000 });
    await queue.enqueue({ prompt: 'short', model: model.id, runId: 'short' });
    await expect.poll(() => worker.running, { timeout: 10_000 }).toBe(1);
    await worker.close();
    expect((await queue.job('short')).state).toBe('completed');
  });

  it('Redis down at start: the worker and the producer refuse with a clear error', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const store = await openStore('memory:');
    await expect(startRunWorker({ redis: url, store, agent: () => ({ model: twoStepModel() }) })).rejects.toThrow(
      new RegExp(
        `^Cannot reach Redis at ${url}: .*ECONNREFUSED.*\\. Start Redis there, or give the right URL \\(--redis / BRIDLE_REDIS_URL\\)\\.$`,
      ),
    );
    await expect(openRunQueue({ redis: url })).rejects.toThrow(ConfigError);
    await expect(openRunQueue({ redis: 'http://127.0.0.1:6379' })).rejects.toThrow(
      'Invalid Redis URL "http://127.0.0.1:6379": expected redis://host:port (e.g. redis://127.0.0.1:6379), or rediss:// for TLS.',
    );
    await expect(openRunQueue({ redis: 'redis://:secret@127.0.0.1:1', prefix: 'a:b' })).rejects.toThrow(
      `Invalid queue prefix "a:b"`,
    );
    await store.close();
  });
});

void addTool;
