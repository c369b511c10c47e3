// The journal: with a store, every event is appended, only new events per write, and a model response or
// a tool result is durable before the loop goes on.
import { BridleError, type RunEvent, type Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { replayModel, scriptedModel } from '@bridle/testing';
import { describe, expect, it, vi } from 'vitest';
import { JournalError, resumeRun, runAgent } from '../src/index';
import { addTool, call, recorder } from './helpers';
import { memoryJournal } from './test-stores';

const steps = (count: number) => [
  ...Array.from({ length: count }, (_, index) => ({
    content: `step ${index + 1}`,
    toolCalls: [call(`c${index}`, 'add', { a: index, b: 1 })],
    usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, costUsd: 0.001 },
    finishReason: 'tool_calls' as const,
    providerData: { reasoning: [`r${index}`] },
  })),
  { content: 'done', finishReason: 'stop' as const },
];

describe('journal', () => {
  it('appends every event, each write only the events since the last one, in sequence', async () => {
    const store = memoryJournal();
    const events = recorder();
    const result = await runAgent({
      model: scriptedModel(steps(20)),
      tools: [addTool()],
      prompt: 'go',
      maxSteps: 30,
      store,
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('completed');
    const journaled = store.runs.get(result.runId) as RunEvent[];
    expect(journaled).toEqual(JSON.parse(JSON.stringify(events.events)));
    expect(store.appends.flat()).toEqual(journaled);
    // Steady state: every step writes the same number of events, however long the history.
    const sizes = store.appends.map((append) => append.length);
    expect(new Set(sizes.slice(2, -2)).size).toBeLessThanOrEqual(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(journaled.map((event) => event.sequence)).toEqual(journaled.map((_, index) => index));
  });

  it('journals the full model response: tool calls, provider data, finish reason, usage parts', async () => {
    const store = memoryJournal();
    const result = await runAgent({ model: scriptedModel(steps(1)), tools: [addTool()], prompt: 'go', store });
    const modelEnds = (store.runs.get(result.runId) as RunEvent[]).filter((event) => event.type === 'model_end');
    expect(modelEnds[0]).toMatchObject({
      step: 1,
      content: 'step 1',
      finishReason: 'tool_calls',
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, costUsd: 0.001 },
      response: { toolCalls: [call('c0', 'add', { a: 0, b: 1 })], providerData: { reasoning: ['r0'] } },
    });
    expect(modelEnds[1]).toMatchObject({ finishReason: 'stop' });
    expect(modelEnds[1]).not.toHaveProperty('response');
    // The assistant message keeps the provider data; usage parts add up.
    expect(result.messages[1]).toMatchObject({ role: 'assistant', providerData: { reasoning: ['r0'] } });
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, costUsd: 0.001 });
  });

  it('a model response is durable before its tools run, a tool start before the tool runs', async () => {
    const store = memoryJournal();
    const seen: string[][] = [];
    const probe = addTool({
      execute: (args, context) => {
        seen.push((store.runs.get(context.runId) ?? []).map((event) => event.type));
        const { a, b } = args as { a: number; b: number };
        return a + b;
      },
    });
    await runAgent({ model: scriptedModel(steps(2)), tools: [probe], prompt: 'go', store });
    expect(seen[0]?.slice(-2)).toEqual(['model_end', 'tool_start']);
    expect(seen[1]?.slice(-4)).toEqual(['tool_end', 'model_start', 'model_end', 'tool_start']);
  });

  it('a store that cannot append stops the run with JournalError; the tool it could not journal never runs', async () => {
    const inner = memoryJournal();
    let appends = 0;
    const failing: Store = {
      ...inner,
      async appendEvents(runId, events) {
        appends++;
        if (appends === 2) throw new Error('disk full');
        await inner.appendEvents(runId, events);
      },
    };
    const add = addTool();
    const run = runAgent({ model: scriptedModel(steps(2)), tools: [add], prompt: 'go', store: failing, runId: 'r1' });
    await expect(run).rejects.toThrow(JournalError);
    const error = await run.catch((caught: unknown) => caught);
    expect(BridleError.isInstance(error) && error.code).toBe('journal_failed');
    expect((error as JournalError).conflict).toBe(false);
    expect((error as Error).message).toBe(
      'The journal of run r1 could not be written (disk full), so the run stopped. Resume it with resumeRun({ store, runId: "r1" }) once the store works.',
    );
    // Appends: run_start, then the model's response with the tool_start failed: add never ran.
    expect(add.calls).toEqual([]);
    expect(inner.runs.get('r1')?.map((event) => event.type)).toEqual(['run_start']);
  });

  it('each append gets an array of its own, which the journal never changes afterwards', async () => {
    const inner = memoryJournal();
    const given: { events: RunEvent[]; sequences: number[] }[] = [];
    const keeping: Store = {
      ...inner,
      appendEvents(runId, events) {
        // Kept as given (a store may hold the array until its write commits).
        given.push({ events, sequences: events.map((event) => event.sequence) });
        return inner.appendEvents(runId, events);
      },
    };
    const result = await runAgent({ model: scriptedModel(steps(3)), tools: [addTool()], prompt: 'go', store: keeping });
    expect(result.status).toBe('completed');
    expect(new Set(given.map((append) => append.events)).size).toBe(given.length);
    for (const append of given) expect(append.events.map((event) => event.sequence)).toEqual(append.sequences);
    const all = given.flatMap((append) => append.sequences);
    expect(all).toEqual(Array.from({ length: all.length }, (_, index) => index));
    expect(inner.runs.get(result.runId)?.map((event) => event.sequence)).toEqual(all);
  });

  it('a store whose appendEvents throws instead of rejecting stops the run the same way', async () => {
    const inner = memoryJournal();
    let appends = 0;
    const throwing: Store = {
      ...inner,
      appendEvents(runId, events) {
        appends++;
        if (appends === 2) throw new Error('disk full');
        return inner.appendEvents(runId, events);
      },
    };
    const add = addTool();
    const error = await runAgent({
      model: scriptedModel(steps(2)),
      tools: [add],
      prompt: 'go',
      store: throwing,
      runId: 'r1',
    }).catch((caught: unknown) => caught);
    expect(JournalError.isInstance(error) && error.code).toBe('journal_failed');
    expect((error as Error).message).toContain('(disk full)');
    expect(add.calls).toEqual([]);
    expect(inner.runs.get('r1')?.map((event) => event.type)).toEqual(['run_start']);
  });

  it('rejects a store that is not a Store, and a bad runId, before any model call', async () => {
    const model = scriptedModel([{ content: 'x' }]);
    await expect(runAgent({ model, prompt: 'x', store: {} as Store })).rejects.toThrow(
      'Invalid option store: expected a Store (openStore() of @bridle/store) with an appendEvents() method, got',
    );
    await expect(runAgent({ model, prompt: 'x', runId: 'a b' })).rejects.toThrow('Invalid option runId');
    expect(model.requests).toHaveLength(0);
  });

  it('a run started from a transcript journals it in run_start (the journal alone can rebuild the run)', async () => {
    const store = memoryJournal();
    const messages = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: 'hello' },
      { role: 'user' as const, content: 'again' },
    ];
    const result = await runAgent({ model: scriptedModel([{ content: 'ok' }]), messages, store });
    expect(store.runs.get(result.runId)?.[0]).toMatchObject({ type: 'run_start', messages });
    const plain = recorder();
    await runAgent({ model: scriptedModel([{ content: 'ok' }]), messages, onEvent: plain.onEvent });
    expect(plain.events[0]).not.toHaveProperty('messages');
  });

  it('sessionId is carried by run_start, so the store lists the run under its session; a resume keeps it', async () => {
    const store = await openStore('memory:');
    const approve = () => 'ask' as const;
    const tool = addTool({ requiresApproval: true });
    const model = scriptedModel([
      { content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })] },
      { content: 'three' },
    ]);
    const paused = await runAgent({ model, tools: [tool], approve, prompt: 'add', store, sessionId: 'chat-7' });
    await runAgent({ model: scriptedModel([{ content: 'other' }]), prompt: 'x', store });
    expect((await store.readRun(paused.runId))?.events[0]).toMatchObject({ type: 'run_start', sessionId: 'chat-7' });
    await resumeRun({ model, tools: [tool], store, runId: paused.runId, approvals: { c1: true } });
    const listed = await store.listRuns({ sessionId: 'chat-7' });
    expect(listed.map((run) => [run.runId, run.status])).toEqual([[paused.runId, 'completed']]);
    await expect(runAgent({ model, prompt: 'x', sessionId: '' })).rejects.toThrow(
      'Invalid option sessionId: expected a string of 1 to 256 characters (no NUL), got',
    );
    await expect(resumeRun({ model, store, runId: paused.runId, sessionId: 'chat-7' } as never)).rejects.toThrow(
      'sessionId',
    );
    const plain = recorder();
    await runAgent({ model: scriptedModel([{ content: 'ok' }]), prompt: 'x', onEvent: plain.onEvent });
    expect(plain.events[0]).not.toHaveProperty('sessionId');
    await store.close();
  });

  it('a journaled run replays offline with replayModel: the same transcript, no model', async () => {
    const store = memoryJournal();
    const recorded = await runAgent({ model: scriptedModel(steps(3)), tools: [addTool()], prompt: 'go', store });
    const model = replayModel(store.runs.get(recorded.runId) as RunEvent[]);
    const replayed = await runAgent({ model, tools: [addTool()], prompt: 'go' });
    expect(replayed.messages).toEqual(recorded.messages);
    expect(replayed.usage).toEqual(recorded.usage);
    // A replayed run that goes further than the recording fails naming the step.
    const further = await runAgent({
      model: replayModel(store.runs.get(recorded.runId) as RunEvent[]),
      tools: [addTool()],
      prompt: 'go',
      output: { type: 'number' },
    });
    expect(further.status).toBe('model_error');
    expect(further.error).toContain('replayModel: the run asked for step 5 (model call 5)');
  });

  it('two resumes of one paused run at the same moment: the store refuses the second before it runs the call', async () => {
    // The clock is frozen so both segments' events are stamped alike: only the run_start's segmentId differs.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00.000Z') });
    try {
      const store = await openStore('memory:');
      const add = addTool({ requiresApproval: true });
      const paused = await runAgent({
        model: scriptedModel([{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })] }]),
        tools: [add],
        prompt: 'go',
        store,
        runId: 'r1',
        approve: () => 'ask',
      });
      expect(paused.status).toBe('awaiting_approval');
      const resume = () =>
        resumeRun({
          model: scriptedModel([{ content: 'done' }]),
          tools: [add],
          store,
          runId: 'r1',
          approvals: { c1: true },
        });
      const outcomes = await Promise.allSettled([resume(), resume()]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(JournalError.isInstance(refused.reason)).toBe(true);
      // Told apart from a store that failed: the first resume owns the run (its lease), so the second is
      // fenced before it journals anything.
      expect((refused.reason as JournalError).code).toBe('fenced');
      expect(add.calls).toEqual([{ a: 1, b: 2 }]);
      const starts = (await store.readRun('r1'))?.events.filter((event) => event.type === 'run_start') ?? [];
      expect(starts).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('two resumes at the same moment through a store without leases: the journal refuses the second (conflict)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00.000Z') });
    try {
      const leased = await openStore('memory:');
      // The same store without its lease methods: the segments' own ids make their run_starts conflict.
      const store = {
        appendEvents: leased.appendEvents.bind(leased),
        readRun: leased.readRun.bind(leased),
        listRuns: leased.listRuns.bind(leased),
        getSession: leased.getSession.bind(leased),
        saveSession: leased.saveSession.bind(leased),
        deleteSession: leased.deleteSession.bind(leased),
        listSessions: leased.listSessions.bind(leased),
        close: leased.close.bind(leased),
      };
      const add = addTool({ requiresApproval: true });
      await runAgent({
        model: scriptedModel([{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })] }]),
        tools: [add],
        prompt: 'go',
        store,
        runId: 'r1',
        approve: () => 'ask',
      });
      const resume = () =>
        resumeRun({
          model: scriptedModel([{ content: 'done' }]),
          tools: [add],
          store,
          runId: 'r1',
          approvals: { c1: true },
        });
      const outcomes = await Promise.allSettled([resume(), resume()]);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as JournalError).conflict).toBe(true);
      expect(add.calls).toEqual([{ a: 1, b: 2 }]);
      const starts = (await store.readRun('r1'))?.events.filter((event) => event.type === 'run_start') ?? [];
      expect(new Set(starts.map((event) => (event as { segmentId?: string }).segmentId)).size).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
