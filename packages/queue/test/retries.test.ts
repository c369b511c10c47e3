import { ProviderError, type RunEvent } from '@bridle/protocol';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type RunQueue, startRunWorker } from '../src/index';
import { testAgent, twoStepModel } from './agents';
import { dropPrefix, dropSchema, newPrefix, newSchema, openSchemaStore, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('model error retries (Redis, Postgres)', { postgres: true });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A queue with `attempts`, a Postgres store and one worker whose two-step model fails as `fail` says. */
async function setup(
  attempts: number,
  fail: (prompt: string, step: number, call: number) => ProviderError | undefined,
) {
  const prefix = newPrefix();
  const schema = newSchema();
  const store = await openSchemaStore(schema);
  const queue = await openRunQueue({ redis: REDIS_URL, prefix, attempts, backoffMs: 20 });
  const calls: string[] = [];
  const model = twoStepModel({
    onCall(prompt, step) {
      calls.push(`${prompt}#${step}`);
      const error = fail(prompt, step, calls.filter((call) => call === `${prompt}#${step}`).length);
      if (error) throw error;
    },
  });
  // The worker's own retry settings do not add calls: the job's attempts are the whole budget.
  const agent = testAgent(model);
  const worker = await startRunWorker({
    redis: REDIS_URL,
    prefix,
    store,
    agent: (job) => ({ ...agent(job), retry: { maxRetries: 5, baseDelayMs: 1 } }),
  });
  cleanups.push(async () => {
    await worker.close();
    await queue.close();
    await store.close();
    await dropPrefix(prefix);
    await dropSchema(schema);
  });
  return { queue, store, calls };
}

const overloaded = () => new ProviderError({ code: 'server', provider: 'test', status: 503, message: 'overloaded' });

async function follow(queue: RunQueue, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of queue.follow(runId)) events.push(event);
  return events;
}

suite('@bridle/queue: a run that ends model_error is retried as a new attempt of its job', () => {
  it('a retryable failure is retried from the journal: completed model calls are not made again', async () => {
    const { queue, store, calls } = await setup(3, (_prompt, step, call) =>
      step === 2 && call <= 2 ? overloaded() : undefined,
    );
    await queue.enqueue({ prompt: 'flaky', model: 'test:two-step', runId: 'flaky' });
    const followed = follow(queue, 'flaky');
    const job = await queue.settled('flaky');
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 3 });
    expect(job.result).toMatchObject({ status: 'completed', answer: 'answer: flaky', steps: 2, toolCalls: 1 });
    expect(calls).toEqual(['flaky#1', 'flaky#2', 'flaky#2', 'flaky#2']);
    const journal = await store.readRun('flaky');
    expect(journal?.status).toBe('completed');
    const types = journal?.events.map((event) => event.type);
    expect(types?.filter((type) => type === 'run_end')).toEqual(['run_end']);
    expect(types?.filter((type) => type === 'model_error')).toHaveLength(2);
    expect(types?.filter((type) => type === 'run_start')).toHaveLength(3);
    // Followers see every attempt, and one run_end: the last.
    expect(await followed).toEqual(journal?.events);
  });

  it('the last attempt ends the run model_error; the result names the provider error and the attempts', async () => {
    const { queue, store, calls } = await setup(2, (_prompt, step) => (step === 2 ? overloaded() : undefined));
    await queue.enqueue({ prompt: 'down', model: 'test:two-step', runId: 'down' });
    const job = await queue.settled('down');
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
    expect(job.result).toMatchObject({
      status: 'model_error',
      error: 'overloaded (gave up after 2 attempts of the job)',
      steps: 1,
    });
    // At most 1 + retries calls per step: the job's 2 attempts, not 2 x (1 + the worker's 5).
    expect(calls).toEqual(['down#1', 'down#2', 'down#2']);
    const journal = await store.readRun('down');
    expect(journal?.status).toBe('model_error');
    expect(journal?.events.filter((event) => event.type === 'run_end')).toHaveLength(1);
  });

  it('a failure that is not retryable (a bad request) ends the job at once', async () => {
    const { queue, calls } = await setup(
      3,
      () => new ProviderError({ code: 'bad_request', provider: 'test', status: 400, message: 'bad tool schema' }),
    );
    await queue.enqueue({ prompt: 'bad', model: 'test:two-step', runId: 'bad' });
    const job = await queue.settled('bad');
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 1 });
    expect(job.result).toMatchObject({ status: 'model_error', error: 'bad tool schema' });
    expect(calls).toEqual(['bad#1']);
  });
});
