// Steering and cancel from outside a run: the streamAgent handle, steerRun and cancelRun on a store.
import { BridleError, ConfigError, type RunEvent, type RunLease, type Store, type Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { expectValidTranscript, gatedTool, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { cancelRun, JournalError, RunEndedError, resumeRun, runAgent, steerRun, streamAgent } from '../src/index';
import { addTool, call, deferred, recorder } from './helpers';

function types(events: readonly RunEvent[]): string[] {
  return events.map((event) => event.type);
}

describe('streamAgent handle: input()', () => {
  it('input sent while a batch runs waits for the batch, then joins the transcript before the next model call', async () => {
    const waiting = gatedTool();
    const model = scriptedModel([
      { content: '', toolCalls: [call('c1', 'wait'), call('c2', 'add', { a: 1, b: 2 })] },
      { content: 'done, in French' },
    ]);
    const stream = streamAgent({ model, tools: [waiting.tool, addTool()], prompt: 'go', toolConcurrency: 1 });
    await waiting.running;
    stream.input('answer in French', { by: 'test' });
    waiting.release();
    const result = await stream.result;
    expect(result.status).toBe('completed');
    const events: RunEvent[] = [];
    for await (const event of stream.events) events.push(event);
    // Never inside the batch: both tool calls ended before the input event, which precedes step 2's call.
    expect(types(events)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
      'input',
      'model_start',
      'model_end',
      'run_end',
    ]);
    const input = events.find((event) => event.type === 'input');
    expect(input).toMatchObject({ type: 'input', content: 'answer in French', by: 'test' });
    const second = model.requests[1]?.messages ?? [];
    expect(second.slice(-3).map((message) => message.role)).toEqual(['tool', 'tool', 'user']);
    expect(second.at(-1)).toEqual({ role: 'user', content: 'answer in French' });
    expectValidTranscript(result.messages);
  });

  it('input sent before the run starts is delivered before its first model call', async () => {
    const model = scriptedModel([{ content: 'ok' }]);
    const stream = streamAgent({ model, prompt: 'first' });
    stream.input('and second');
    const result = await stream.result;
    expect(model.requests[0]?.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'user', content: 'and second' },
    ]);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'ok' });
  });

  it('input that comes while the model gives its final answer makes the run go on with it', async () => {
    const answering = deferred();
    const release = deferred();
    const model = scriptedModel([
      async () => {
        answering.resolve();
        await release.promise;
        return { content: 'first answer' };
      },
      { content: 'second answer' },
    ]);
    const stream = streamAgent({ model, prompt: 'x' });
    await answering.promise;
    stream.input('one more thing');
    release.resolve();
    const result = await stream.result;
    expect(result).toMatchObject({ status: 'completed', answer: 'second answer', steps: 2 });
    expect(result.messages.map((message) => message.content)).toEqual([
      'x',
      'first answer',
      'one more thing',
      'second answer',
    ]);
  });

  it('input after the last step is not delivered (maxSteps reached): the run completes as it was', async () => {
    const answering = deferred();
    const release = deferred();
    const model = scriptedModel([
      async () => {
        answering.resolve();
        await release.promise;
        return { content: 'only answer' };
      },
    ]);
    const stream = streamAgent({ model, prompt: 'x', maxSteps: 1 });
    await answering.promise;
    stream.input('too late');
    release.resolve();
    expect(await stream.result).toMatchObject({ status: 'completed', answer: 'only answer', steps: 1 });
  });

  it('input() refuses an empty text with a ConfigError', () => {
    const stream = streamAgent({ model: scriptedModel([{ content: 'ok' }]), prompt: 'x' });
    expect(() => stream.input('')).toThrow(ConfigError);
    return stream.result;
  });
});

describe('streamAgent handle: cancel()', () => {
  it('cancels a run in a tool call: the call is aborted, the run ends aborted with cancelledBy', async () => {
    const waiting = gatedTool();
    const events = recorder();
    const stream = streamAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'wait')] }, { content: 'never' }]),
      tools: [waiting.tool],
      prompt: 'go',
      onEvent: events.onEvent,
    });
    await waiting.running;
    stream.cancel({ by: 'alice' });
    const result = await stream.result;
    expect(result).toMatchObject({
      status: 'aborted',
      cancelledBy: 'alice',
      error: 'The run was cancelled by alice.',
      steps: 1,
    });
    expect(waiting.calls).toEqual([{ aborted: true }]);
    expect(events.events.at(-1)).toMatchObject({ type: 'run_end', status: 'aborted', cancelledBy: 'alice' });
    expectValidTranscript(result.messages);
  });

  it('cancel() before the run starts ends it before any model call', async () => {
    const model = scriptedModel([{ content: 'never' }]);
    const stream = streamAgent({ model, prompt: 'x' });
    stream.cancel();
    expect(await stream.result).toMatchObject({ status: 'aborted', cancelledBy: 'streamAgent', steps: 0 });
    expect(model.requests).toHaveLength(0);
  });
});

describe('steerRun and cancelRun through a store', () => {
  it('steers a running journaled run through its store; the journal rebuilds the same transcript', async () => {
    const store = await openStore('memory:');
    const waiting = gatedTool();
    const model = scriptedModel([{ content: '', toolCalls: [call('c1', 'wait')] }, { content: 'steered' }]);
    const running = runAgent({ model, tools: [waiting.tool], prompt: 'go', store, runId: 'steer-1' });
    await waiting.running;
    expect(await steerRun({ store, runId: 'steer-1', content: 'use the short form', by: 'cli:ada' })).toEqual({
      runId: 'steer-1',
      delivery: 'signal',
    });
    // The signal reaches the run (in its inbox) before the batch ends; it is delivered at the boundary.
    await new Promise((resolve) => setImmediate(resolve));
    waiting.release();
    const result = await running;
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'use the short form' });
    const journal = (await store.readRun('steer-1'))?.events ?? [];
    expect(journal.find((event) => event.type === 'input')).toMatchObject({
      content: 'use the short form',
      by: 'cli:ada',
    });
    // Rebuilt from the journal, the run's transcript is the same as the live one.
    const again = await resumeRun({ model: scriptedModel([]), tools: [waiting.tool], store, runId: 'steer-1' });
    expect(again.messages).toEqual(result.messages);
    await store.close();
  });

  it('input for a paused run is kept in its journal and joins the transcript after the batch on resume', async () => {
    const store = await openStore('memory:');
    const risky: Tool = {
      name: 'rm',
      description: 'rm',
      parameters: { type: 'object' },
      requiresApproval: true,
      execute: () => 'removed',
    };
    const model = scriptedModel([{ content: '', toolCalls: [call('c1', 'rm')] }, { content: 'ok, briefly' }]);
    const paused = await runAgent({
      model,
      tools: [risky],
      prompt: 'go',
      store,
      runId: 'paused-1',
      approve: () => 'ask',
    });
    expect(paused.status).toBe('awaiting_approval');
    expect(await steerRun({ store, runId: 'paused-1', content: 'be brief' })).toEqual({
      runId: 'paused-1',
      delivery: 'journal',
    });
    const resumed = await resumeRun({ model, tools: [risky], store, runId: 'paused-1', approvals: { c1: true } });
    expect(resumed.status).toBe('completed');
    expect(model.requests[1]?.messages.slice(-2)).toEqual([
      { role: 'tool', callId: 'c1', name: 'rm', content: 'removed', isError: false },
      { role: 'user', content: 'be brief' },
    ]);
    expectValidTranscript(resumed.messages);
    await store.close();
  });

  it('cancels a paused run in its journal: aborted, cancelledBy, its pending call answered as cut', async () => {
    const store = await openStore('memory:');
    const risky: Tool = {
      name: 'rm',
      description: 'rm',
      parameters: { type: 'object' },
      requiresApproval: true,
      execute: () => 'removed',
    };
    const model = scriptedModel([{ content: '', toolCalls: [call('c1', 'rm')] }]);
    await runAgent({ model, tools: [risky], prompt: 'go', store, runId: 'paused-2', approve: () => 'ask' });
    expect(await cancelRun({ store, runId: 'paused-2', by: 'api' })).toEqual({
      runId: 'paused-2',
      delivery: 'journal',
    });
    const stored = await store.readRun('paused-2');
    expect(stored?.status).toBe('aborted');
    expect(stored?.events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'aborted',
      cancelledBy: 'api',
      toolCalls: 1,
    });
    const ended = await resumeRun({ model, tools: [risky], store, runId: 'paused-2' });
    expect(ended.status).toBe('aborted');
    expectValidTranscript(ended.messages);
    await store.close();
  });

  it('cancels a running journaled run through its store', async () => {
    const store = await openStore('memory:');
    const waiting = gatedTool();
    const running = runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'wait')] }]),
      tools: [waiting.tool],
      prompt: 'go',
      store,
      runId: 'cancel-1',
    });
    await waiting.running;
    await cancelRun({ store, runId: 'cancel-1', by: 'bob' });
    expect(await running).toMatchObject({ status: 'aborted', cancelledBy: 'bob' });
    expect((await store.readRun('cancel-1'))?.events.at(-1)).toMatchObject({ status: 'aborted', cancelledBy: 'bob' });
    await store.close();
  });

  it('input and cancel for a run whose process stopped (lease expired) are journaled for its resume; the old owner is fenced', async () => {
    const store = await openStore('memory:');
    // The first owner renews nothing in the store (as a process stopped by SIGSTOP): its lease expires.
    const frozen = new Proxy(store, {
      get: (target, key) =>
        key === 'renewLease'
          ? async (lease: RunLease) => lease
          : (Reflect.get(target, key) as unknown) instanceof Function
            ? (Reflect.get(target, key) as (...args: unknown[]) => unknown).bind(target)
            : Reflect.get(target, key),
    }) as Store;
    const waiting = gatedTool();
    const first = scriptedModel([{ content: '', toolCalls: [call('c1', 'wait')] }]);
    const running = runAgent({
      model: first,
      tools: [waiting.tool],
      prompt: 'go',
      store: frozen,
      runId: 'orphan-1',
      ownership: { owner: 'stopped-process', leaseMs: 20 },
    }).catch((error: unknown) => error);
    await waiting.running;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await steerRun({ store, runId: 'orphan-1', content: 'be brief', by: 'cli:ada' })).toEqual({
      runId: 'orphan-1',
      delivery: 'journal',
    });
    // The old owner wakes: its tool result is refused (fenced) and it stops before any further call.
    waiting.release();
    const stopped = await running;
    expect(JournalError.isInstance(stopped) && stopped.fenced).toBe(true);
    expect(first.requests).toHaveLength(1);
    // Still running, its lease lapsed: an orphan, which recovery claims and resumes with the input.
    expect((await store.listRuns({ status: 'running' })).map((run) => run.runId)).toEqual(['orphan-1']);
    // The steering lease lasts 1 ms: once it has passed, recovery claims the run.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [lease] = (await store.claimOrphans?.({ owner: 'recovery', leaseMs: 60_000 })) ?? [];
    expect(lease?.runId).toBe('orphan-1');
    const second = scriptedModel([{ content: 'brief' }]);
    const resumed = await resumeRun({
      model: second,
      tools: [waiting.tool],
      store,
      runId: 'orphan-1',
      ownership: { lease: lease as RunLease },
    });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'brief' });
    expect(second.requests[0]?.messages.slice(-2)).toEqual([
      {
        role: 'tool',
        callId: 'c1',
        name: 'wait',
        content: 'Interrupted: this call may or may not have run; check before retrying',
        isError: true,
      },
      { role: 'user', content: 'be brief' },
    ]);
    expectValidTranscript(resumed.messages);

    // A cancel of such a run ends it in its journal: it is no orphan any more.
    const again = gatedTool();
    const cut = runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c2', 'wait')] }]),
      tools: [again.tool],
      prompt: 'go',
      store: frozen,
      runId: 'orphan-2',
      ownership: { owner: 'stopped-process', leaseMs: 20 },
    }).catch((error: unknown) => error);
    await again.running;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cancelRun({ store, runId: 'orphan-2', by: 'bob' })).toEqual({
      runId: 'orphan-2',
      delivery: 'journal',
    });
    again.release();
    await cut;
    expect((await store.readRun('orphan-2'))?.events.at(-1)).toMatchObject({ status: 'aborted', cancelledBy: 'bob' });
    expect(await store.claimOrphans?.({ owner: 'recovery', leaseMs: 60_000 })).toEqual([]);
    // Ended, it has no owner any more.
    const [ended] = (await store.listRuns({ status: 'aborted' })).filter((run) => run.runId === 'orphan-2');
    expect(ended?.owner).toBeUndefined();
    await store.close();
  });

  it('an ended run refuses both with RunEndedError (code run_ended); an unknown run is a ConfigError', async () => {
    const store = await openStore('memory:');
    await runAgent({ model: scriptedModel([{ content: 'hi' }]), prompt: 'x', store, runId: 'done-1' });
    const steer = steerRun({ store, runId: 'done-1', content: 'more' });
    await expect(steer).rejects.toThrow(RunEndedError);
    await expect(steer).rejects.toMatchObject({ code: 'run_ended', status: 'completed' });
    await expect(cancelRun({ store, runId: 'done-1' })).rejects.toSatisfy(
      (error: unknown) => BridleError.isInstance(error) && error.code === 'run_ended',
    );
    await expect(steerRun({ store, runId: 'nope', content: 'x' })).rejects.toThrow(ConfigError);
    await expect(steerRun({ store, runId: 'done-1', content: '' })).rejects.toThrow('Invalid option content');
    // Nothing was journaled by the refusals.
    expect((await store.readRun('done-1'))?.events.map((event) => event.type)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'run_end',
    ]);
    await store.close();
  });
});
