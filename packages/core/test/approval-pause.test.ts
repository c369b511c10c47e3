// `approve` answering 'ask': the run pauses before the batch, and resumeRun continues it with decisions,
// from `state` alone or from a store's journal.
import { ConfigError, type RunEvent, type RunState, type Tool } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { type ApproveHook, resumeRun, runAgent } from '../src/index';
import { call, recorder } from './helpers';
import { memoryJournal } from './test-stores';

/** Tools: `free` (no approval), `rm` and `send` (requiresApproval); each records what ran. */
function toolbox() {
  const ran: string[] = [];
  const make = (name: string, requiresApproval: boolean): Tool => ({
    name,
    description: name,
    parameters: { type: 'object' },
    requiresApproval,
    execute: (args) => {
      ran.push(`${name}:${JSON.stringify(args)}`);
      return `${name} done`;
    },
  });
  return { ran, tools: [make('free', false), make('rm', true), make('send', true)] };
}

const batch = {
  content: 'working',
  toolCalls: [call('a', 'free', { n: 1 }), call('b', 'rm', { path: 'x' }), call('c', 'send', { to: 'ada' })],
};

/** Asks a person about rm; approves send itself; counts questions. */
function hook(asked: string[]): ApproveHook {
  return (toolCall) => {
    asked.push(toolCall.id);
    return toolCall.name === 'rm' ? 'ask' : true;
  };
}

describe("approve answering 'ask'", () => {
  it('pauses before the batch: awaiting_approval, the pending calls, messages before the batch, a state', async () => {
    const { ran, tools } = toolbox();
    const asked: string[] = [];
    const events = recorder();
    const result = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'clean up',
      approve: hook(asked),
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('awaiting_approval');
    expect(result.pendingApprovals).toEqual([
      { callId: 'b', name: 'rm', arguments: { path: 'x' }, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    ]);
    expect(result.messages).toEqual([{ role: 'user', content: 'clean up' }]);
    expectValidTranscript(result.messages);
    expect(ran).toEqual([]);
    expect(asked).toEqual(['b', 'c']);
    expect(result).toMatchObject({ steps: 1, toolCalls: 0 });
    const state = result.state as RunState;
    expect(state).toMatchObject({ version: 1, runId: result.runId });
    expect(state.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    // rm waits for a person; send was approved by the hook (a policy).
    expect(events.types()).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'approval_requested',
      'approval_decided',
      'run_end',
    ]);
    expect(events.ofType('approval_requested')).toEqual([
      expect.objectContaining({ step: 1, callId: 'b', name: 'rm' }),
    ]);
    expect(events.ofType('approval_requested')[0]).not.toHaveProperty('deadline');
    expect(events.ofType('approval_decided')).toEqual([
      expect.objectContaining({ callId: 'c', approved: true, decidedBy: 'policy' }),
    ]);
    expect(events.ofType('run_end')[0]).toMatchObject({
      status: 'awaiting_approval',
      state,
      pendingApprovals: result.pendingApprovals,
    });
  });

  it('resumeRun runs approved calls with the recorded arguments, without asking again, and continues', async () => {
    const { ran, tools } = toolbox();
    const asked: string[] = [];
    const first = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'clean up', approve: hook(asked) });
    const events = recorder();
    const model = scriptedModel([{ content: 'all done' }]);
    const result = await resumeRun({
      model,
      tools,
      approve: hook(asked),
      state: first.state,
      approvals: { b: true },
      onEvent: events.onEvent,
    });
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'all done',
      runId: first.runId,
      steps: 2,
      toolCalls: 3,
    });
    expect(ran).toEqual(['free:{"n":1}', 'rm:{"path":"x"}', 'send:{"to":"ada"}']);
    expect(asked).toEqual(['b', 'c']);
    expectValidTranscript(result.messages);
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(model.requests[0]?.messages).toEqual(result.messages.slice(0, 5));
    expect(events.types()).toEqual([
      'run_start',
      'approval_decided',
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
      'model_start',
      'model_end',
      'run_end',
    ]);
    expect(events.events[0]).toMatchObject({
      type: 'run_start',
      resumed: true,
      approvals: { b: true },
      runId: first.runId,
    });
    expect(events.events[0]?.sequence).toBe((first.state as RunState).nextSequence);
    expect(events.events[1]).toMatchObject({ callId: 'b', approved: true, decidedBy: 'person' });
    expect(events.events[1]).not.toHaveProperty('by');
  });

  it('a denial answers the call with Denied: <reason> (or a default) and the model goes on', async () => {
    for (const [decision, text] of [
      [false, 'Denied: the call to rm was not approved.'],
      [{ approved: false as const, reason: 'not today' }, 'Denied: not today'],
    ] as const) {
      const { ran, tools } = toolbox();
      const first = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'x', approve: hook([]) });
      const result = await resumeRun({
        model: scriptedModel([{ content: 'ok' }]),
        tools,
        state: first.state,
        approvals: { b: decision },
      });
      expect(result.status).toBe('completed');
      expect(result.messages[3]).toEqual({ role: 'tool', callId: 'b', name: 'rm', content: text, isError: true });
      expect(ran).toEqual(['free:{"n":1}', 'send:{"to":"ada"}']);
    }
  });

  it('a call left without a decision stays pending: the run pauses again and nothing runs', async () => {
    const { ran, tools } = toolbox();
    const twoAsks: ApproveHook = () => 'ask';
    const first = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'x', approve: twoAsks });
    expect(first.pendingApprovals?.map((pending) => pending.callId)).toEqual(['b', 'c']);
    const model = scriptedModel([{ content: 'ok' }]);
    const second = await resumeRun({ model, tools, state: first.state, approvals: { c: true } });
    expect(second.status).toBe('awaiting_approval');
    expect(second.pendingApprovals).toEqual([
      { callId: 'b', name: 'rm', arguments: { path: 'x' }, digest: first.pendingApprovals?.[0]?.digest },
    ]);
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(0);
    const third = await resumeRun({ model, tools, state: second.state, approvals: { b: true } });
    expect(third.status).toBe('completed');
    expect(ran).toEqual(['free:{"n":1}', 'rm:{"path":"x"}', 'send:{"to":"ada"}']);
  });

  it('only requiresApproval tools are asked; the hook may deny some and ask others in one batch', async () => {
    const { ran, tools } = toolbox();
    const asked: string[] = [];
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'x',
      approve: (toolCall) => {
        asked.push(toolCall.id);
        return toolCall.name === 'rm' ? false : 'ask';
      },
    });
    expect(asked).toEqual(['b', 'c']);
    expect(first.pendingApprovals?.map((pending) => pending.callId)).toEqual(['c']);
    const result = await resumeRun({
      model: scriptedModel([{ content: 'ok' }]),
      tools,
      state: first.state,
      approvals: { c: true },
    });
    expect(result.messages[3]).toMatchObject({ content: 'Denied: the approve hook refused this call to rm.' });
    expect(ran).toEqual(['free:{"n":1}', 'send:{"to":"ada"}']);
  });

  it('refuses, naming the call id, a decision on a call that is not pending; nothing runs', async () => {
    const { ran, tools } = toolbox();
    const first = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'x', approve: hook([]) });
    const model = scriptedModel([{ content: 'ok' }]);
    for (const callId of ['zz', 'a', 'c']) {
      const attempt = resumeRun({ model, tools, state: first.state, approvals: { [callId]: true } });
      await expect(attempt).rejects.toThrow(ConfigError);
      await expect(attempt).rejects.toThrow(
        `Cannot decide call "${callId}": it is not pending in run ${first.runId} (pending: "b")`,
      );
    }
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a state edited by hand, of a newer version, or not a state at all', async () => {
    const { tools } = toolbox();
    const first = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'x', approve: hook([]) });
    const state = first.state as RunState;
    const edited = JSON.parse(JSON.stringify(state));
    edited.batch.calls[1].arguments = { path: '/' };
    const model = scriptedModel([{ content: 'ok' }]);
    await expect(resumeRun({ model, tools, state: edited, approvals: { b: true } })).rejects.toThrow(
      'Invalid option state: its digest does not match its content (it was changed after the run paused).',
    );
    await expect(resumeRun({ model, tools, state: { ...state, version: 2 } })).rejects.toThrow(
      'it has format version 2, newer than this @bridle/core reads (1). Upgrade @bridle/core',
    );
    await expect(resumeRun({ model, tools, state: 'x' as unknown as RunState })).rejects.toThrow(ConfigError);
    await expect(resumeRun({ model, tools })).rejects.toThrow('resumeRun needs to know the run');
    await expect(resumeRun({ model, tools, state, approvals: { b: 'yes' as unknown as boolean } })).rejects.toThrow(
      'Invalid option approvals["b"]: expected true, false, { approved: true, digest?, by?, decidedBy? } or { approved: false, reason?, digest?, by?, decidedBy? }',
    );
    await expect(resumeRun({ model, tools, state, prompt: 'x' } as never)).rejects.toThrow('Unknown option prompt');
    expect(model.requests).toHaveLength(0);
  });

  it('a throwing hook, no hook, and a hook answering other values still deny (fail closed)', async () => {
    const { ran, tools } = toolbox();
    for (const approve of [undefined, () => 'maybe' as unknown as boolean, () => Promise.reject(new Error('x'))]) {
      const result = await runAgent({
        model: scriptedModel([batch, { content: 'ok' }]),
        tools,
        prompt: 'x',
        ...(approve ? { approve } : {}),
      });
      expect(result.status).toBe('completed');
    }
    expect(ran).toEqual(['free:{"n":1}', 'free:{"n":1}', 'free:{"n":1}']);
  });
});

describe('pause and resume with a store', () => {
  it('journals both segments under one runId; the store state is the pause state; sequences continue', async () => {
    const store = memoryJournal();
    const { ran, tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'x',
      approve: hook([]),
      store,
      runId: 'run-1',
    });
    expect(first.status).toBe('awaiting_approval');
    expect(first.state).toMatchObject({ journaled: true });
    expect(first.state).not.toHaveProperty('messages');
    const stored = await store.readRun('run-1');
    expect(stored).toMatchObject({ status: 'awaiting_approval', state: first.state });
    const result = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      store,
      runId: 'run-1',
      approvals: { b: true },
    });
    expect(result).toMatchObject({ status: 'completed', runId: 'run-1', steps: 2, toolCalls: 3 });
    expect(ran).toHaveLength(3);
    const events = (await store.readRun('run-1'))?.events as RunEvent[];
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
    expect(events.filter((event) => event.type === 'run_start').map((event) => event.resumed ?? false)).toEqual([
      false,
      true,
    ]);
    expect(events.filter((event) => event.type === 'run_end').map((event) => event.status)).toEqual([
      'awaiting_approval',
      'completed',
    ]);
    expect((await store.readRun('run-1'))?.status).toBe('completed');
  });

  it('resuming a run that ended returns its result and emits and writes nothing; decisions are refused', async () => {
    const store = memoryJournal();
    const { tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'x',
      approve: hook([]),
      store,
      runId: 'run-2',
    });
    const done = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      store,
      runId: 'run-2',
      approvals: { b: true },
    });
    const appends = store.appends.length;
    const events = recorder();
    const model = scriptedModel([]);
    const again = await resumeRun({ model, tools, store, runId: 'run-2', onEvent: events.onEvent });
    expect(again).toEqual(done);
    // The stale pause state of a run that has ended: the same result.
    expect(await resumeRun({ model, tools, store, state: first.state })).toEqual(done);
    expect(events.events).toEqual([]);
    expect(store.appends.length).toBe(appends);
    await expect(resumeRun({ model, tools, store, runId: 'run-2', approvals: { b: true } })).rejects.toThrow(
      'Cannot decide call "b": run run-2 is not waiting for approval (status completed). Nothing was run.',
    );
    expect(model.requests).toHaveLength(0);
  });

  it("refuses an unknown run id, a runId already in the store, and a state that is not the journal's", async () => {
    const store = memoryJournal();
    const { tools } = toolbox();
    const model = scriptedModel([{ content: 'x' }]);
    await expect(resumeRun({ model, tools, store, runId: 'nope' })).rejects.toThrow(
      'Unknown run "nope": the store has no journal for it. Check the runId.',
    );
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'x',
      approve: hook([]),
      store,
      runId: 'r3',
    });
    await expect(runAgent({ model, prompt: 'x', store, runId: 'r3' })).rejects.toThrow(
      'Invalid option runId: run "r3" is already in the store.',
    );
    const other = await runAgent({ model: scriptedModel([batch]), tools, prompt: 'x', approve: hook([]) });
    await expect(resumeRun({ model, tools, store, runId: 'r3', state: other.state })).rejects.toThrow(
      `it belongs to run ${other.runId}, not to runId r3`,
    );
    await expect(resumeRun({ model, tools, state: first.state })).rejects.toThrow('Pass that store too.');
    expect(model.requests).toHaveLength(0);
  });
});
