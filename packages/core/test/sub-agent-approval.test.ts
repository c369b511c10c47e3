// A sub-agent's (agentTool) call that needs a decision pauses the parent too: the parent's
// pendingApprovals list the inner call with the sub-agent's runId, and resuming the parent resumes the
// sub-agent where it stopped (SPEC, second release: "Approvals are bound to the run").
import { createHash } from 'node:crypto';
import { ConfigError, type Model, type ModelResponse, type RunState, type Tool } from '@bridle/protocol';
import { expectValidTranscript } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { Agent, type ApproveHook, agentTool, resumeRun, runAgent } from '../src/index';
import { call, recorder } from './helpers';
import { memoryJournal } from './test-stores';

const usage = { inputTokens: 10, outputTokens: 1 };

/** A model whose step n (n - 1 assistant messages so far) answers `script[n - 1]`; records the steps asked. */
function stepModel(id: string, script: ModelResponse[]): Model & { steps: number[] } {
  const steps: number[] = [];
  return {
    id,
    steps,
    async generate(request) {
      const step = request.messages.filter((message) => message.role === 'assistant').length + 1;
      steps.push(step);
      const response = script[step - 1];
      if (!response) throw new Error(`${id}: no step ${step}`);
      return structuredClone(response);
    },
  };
}

/** `write` (requires approval) and `note` (free); each records what ran. */
function toolbox() {
  const ran: string[] = [];
  const make = (name: string, requiresApproval: boolean): Tool => ({
    name,
    description: name,
    parameters: { type: 'object' },
    requiresApproval,
    execute: (args) => {
      ran.push(`${name} ${JSON.stringify(args)}`);
      return `${name} ok`;
    },
  });
  return { ran, tools: [make('write', true), make('note', false)] };
}

const ask: ApproveHook = () => 'ask';

/** The approval digest core gives a pending call (SHA-256 of its canonical JSON: keys sorted). */
function digestOf(runId: string, callId: string, name: string, args: Record<string, unknown>): string {
  const content = JSON.stringify({ arguments: args, callId, name, runId });
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** A child that writes (needs a decision), then answers; a parent that delegates once, then answers. */
function family() {
  const box = toolbox();
  const child = stepModel('child', [
    { content: 'writing', toolCalls: [call('w1', 'write', { path: 'a.txt' })], usage },
    { content: 'child done', usage },
  ]);
  const helper = agentTool({ model: child, tools: box.tools }, { name: 'helper', description: 'Writes files' });
  const parent = stepModel('parent', [
    { content: '', toolCalls: [call('d1', 'helper', { prompt: 'write a.txt' })], usage },
    { content: 'parent done', usage },
  ]);
  return { ...box, child, parent, tools: [helper] };
}

describe('a sub-agent that needs a decision pauses its parent', () => {
  it('without a store: the parent pauses listing the inner call with the sub-agent runId; its state resumes both', async () => {
    const { ran, child, parent, tools } = family();
    const events = recorder();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask, onEvent: events.onEvent });
    expect(paused.status).toBe('awaiting_approval');
    const childRunId = paused.pendingApprovals?.[0]?.runId as string;
    expect(childRunId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(childRunId).not.toBe(paused.runId);
    expect(paused.pendingApprovals).toEqual([
      {
        callId: 'w1',
        name: 'write',
        arguments: { path: 'a.txt' },
        runId: childRunId,
        // Bound to the sub-agent's own call: its run id, call id, name and arguments.
        digest: digestOf(childRunId, 'w1', 'write', { path: 'a.txt' }),
      },
    ]);
    // The parent's messages end before its batch; nothing ran; the usage so far counts the child's step.
    expect(paused.messages).toEqual([{ role: 'user', content: 'go' }]);
    expect(paused).toMatchObject({ steps: 1, toolCalls: 0, usage: { inputTokens: 20, outputTokens: 2 } });
    expect(ran).toEqual([]);
    // The child's pause is visible in the parent's events (forwarded, with parentRunId); the parent's run_end lists it.
    const ends = events.ofType('run_end');
    expect(ends.map((end) => [end.runId, end.status, end.parentRunId])).toEqual([
      [childRunId, 'awaiting_approval', paused.runId],
      [paused.runId, 'awaiting_approval', undefined],
    ]);
    expect(ends[1]?.pendingApprovals).toEqual(paused.pendingApprovals);

    const state = JSON.parse(JSON.stringify(paused.state)) as RunState;
    // A decision bound to another pause is refused on the parent, before anything runs.
    const stale = { approved: true as const, digest: 'sha256:0' };
    await expect(resumeRun({ model: parent, tools, state, approvals: { w1: stale } })).rejects.toThrow(
      'Cannot decide call "w1": the decision was made on another pause (it names digest "sha256:0"',
    );
    expect(ran).toEqual([]);
    expect(child.steps).toEqual([1]);
    const resumedEvents = recorder();
    // Bound to the call the parent listed (the sub-agent's own digest): it reaches the sub-agent and runs.
    const digest = paused.pendingApprovals?.[0]?.digest as string;
    const result = await resumeRun({
      model: parent,
      tools,
      state,
      approvals: { w1: { approved: true, digest } },
      onEvent: resumedEvents.onEvent,
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'parent done', steps: 2, toolCalls: 1 });
    expect(ran).toEqual(['write {"path":"a.txt"}']);
    // Neither model was asked a step again: the child continued from its pause.
    expect(child.steps).toEqual([1, 2]);
    expect(parent.steps).toEqual([1, 2]);
    expect(result.messages[2]).toMatchObject({ role: 'tool', callId: 'd1', content: 'child done', isError: false });
    expectValidTranscript(result.messages);
    // Usage: each of the four model calls once.
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 4 });
    const childStart = resumedEvents.events.find((event) => event.runId === childRunId);
    expect(childStart).toMatchObject({
      type: 'run_start',
      resumed: true,
      approvals: { w1: { approved: true, digest } },
      parentRunId: paused.runId,
    });
  });

  it('a denial reaches the sub-agent as its Denied result; the sub-agent goes on', async () => {
    const { ran, parent, tools } = family();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    const result = await resumeRun({
      model: parent,
      tools,
      state: paused.state as RunState,
      approvals: { w1: { approved: false, reason: 'not that file' } },
    });
    expect(result.status).toBe('completed');
    expect(ran).toEqual([]);
    expect(result.messages[2]).toMatchObject({ content: 'child done', isError: false });
  });

  it('with a store: both runs are journaled, each consistent; resuming by runId continues the sub-agent', async () => {
    const { ran, child, parent, tools } = family();
    const store = memoryJournal();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask, store, runId: 'parent-1' });
    const childRunId = paused.pendingApprovals?.[0]?.runId as string;
    expect(paused.status).toBe('awaiting_approval');
    expect((await store.readRun('parent-1'))?.status).toBe('awaiting_approval');
    const childRun = await store.readRun(childRunId);
    expect(childRun?.status).toBe('awaiting_approval');
    // The child's own journal holds its own events only (no parentRunId), numbered from 0.
    expect(childRun?.events.map((event) => event.sequence)).toEqual(childRun?.events.map((_, index) => index));
    expect(childRun?.events.every((event) => event.runId === childRunId && event.parentRunId === undefined)).toBe(true);
    // Its first run_start names the run and call that started it.
    expect(childRun?.events[0]).toMatchObject({ type: 'run_start', parent: { runId: 'parent-1', callId: 'd1' } });
    const parentEnd = (await store.readRun('parent-1'))?.events.at(-1);
    expect(parentEnd).toMatchObject({
      type: 'run_end',
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'w1', name: 'write', arguments: { path: 'a.txt' }, runId: childRunId }],
    });

    const result = await resumeRun({ model: parent, tools, store, runId: 'parent-1', approvals: { w1: true } });
    expect(result).toMatchObject({ status: 'completed', answer: 'parent done', steps: 2, toolCalls: 1 });
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 4 });
    expect(ran).toEqual(['write {"path":"a.txt"}']);
    expect(child.steps).toEqual([1, 2]);
    for (const runId of ['parent-1', childRunId]) {
      const run = await store.readRun(runId);
      expect(run?.status).toBe('completed');
      expect(run?.events.map((event) => event.sequence)).toEqual(run?.events.map((_, index) => index));
      expect(run?.events.filter((event) => event.type === 'run_end').map((event) => event.status)).toEqual([
        'awaiting_approval',
        'completed',
      ]);
    }
    // The child's resumed segment journals the decision meant for it.
    const childEvents = (await store.readRun(childRunId))?.events ?? [];
    expect(childEvents.find((event) => event.type === 'run_start' && event.resumed)).toMatchObject({
      approvals: { w1: true },
    });
    // Resuming the ended parent returns the same result and writes nothing.
    const before = store.appends.length;
    const again = await resumeRun({ model: parent, tools, store, runId: 'parent-1' });
    expect(again).toMatchObject({
      status: 'completed',
      answer: 'parent done',
      usage: { inputTokens: 40, outputTokens: 4 },
    });
    expect(store.appends.length).toBe(before);
  });

  it('calls before the sub-agent in the batch run once; calls after it run only once it is decided', async () => {
    const { ran, parent: _unused, tools } = family();
    const [helper] = tools;
    const box = toolbox();
    const parent = stepModel('parent', [
      {
        content: '',
        toolCalls: [
          call('n1', 'note', { n: 1 }),
          call('d1', 'helper', { prompt: 'write' }),
          call('n2', 'note', { n: 2 }),
        ],
        usage,
      },
      { content: 'parent done', usage },
    ]);
    const all = [helper as Tool, ...box.tools.filter((tool) => tool.name === 'note')];
    const paused = await runAgent({ model: parent, tools: all, prompt: 'go', approve: ask });
    expect(paused.status).toBe('awaiting_approval');
    expect(box.ran).toEqual(['note {"n":1}']);
    const result = await resumeRun({
      model: parent,
      tools: all,
      state: paused.state as RunState,
      approvals: { w1: true },
    });
    expect(result.status).toBe('completed');
    expect(box.ran).toEqual(['note {"n":1}', 'note {"n":2}']);
    expect(ran).toEqual(['write {"path":"a.txt"}']);
    expect(result.messages.slice(2, 5).map((message) => message.content)).toEqual(['note ok', 'child done', 'note ok']);
    expectValidTranscript(result.messages);
  });

  it('a call left undecided stays pending: the parent pauses again with it', async () => {
    const box = toolbox();
    const child = stepModel('child', [
      {
        content: '',
        toolCalls: [call('w1', 'write', { path: 'a' }), call('w2', 'write', { path: 'b' })],
        usage,
      },
      { content: 'child done', usage },
    ]);
    const tools = [agentTool({ model: child, tools: box.tools }, { name: 'helper', description: 'd' })];
    const parent = stepModel('parent', [
      { content: '', toolCalls: [call('d1', 'helper', { prompt: 'p' })], usage },
      { content: 'parent done', usage },
    ]);
    const first = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    expect(first.pendingApprovals?.map((pending) => pending.callId)).toEqual(['w1', 'w2']);
    const second = await resumeRun({ model: parent, tools, state: first.state as RunState, approvals: { w1: true } });
    expect(second.status).toBe('awaiting_approval');
    expect(second.pendingApprovals).toEqual([
      {
        callId: 'w2',
        name: 'write',
        arguments: { path: 'b' },
        runId: first.pendingApprovals?.[0]?.runId,
        digest: digestOf(first.pendingApprovals?.[0]?.runId as string, 'w2', 'write', { path: 'b' }),
      },
    ]);
    expect(box.ran).toEqual([]);
    const third = await resumeRun({ model: parent, tools, state: second.state as RunState, approvals: { w2: true } });
    expect(third.status).toBe('completed');
    expect(box.ran).toEqual(['write {"path":"a"}', 'write {"path":"b"}']);
    expect(child.steps).toEqual([1, 2]);
  });

  it('a decision for a call no sub-agent waits on is refused naming it and what is pending; nothing runs', async () => {
    const { ran, parent, tools } = family();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    const attempt = resumeRun({ model: parent, tools, state: paused.state as RunState, approvals: { d1: true } });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      `Cannot decide call "d1": it is not pending in run ${paused.runId} (pending: "w1")`,
    );
    expect(ran).toEqual([]);
  });

  it("a decision bound to the sub-agent call's digest applies to it; one naming another pause's digest is refused before anything runs", async () => {
    const { ran, parent, tools } = family();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    const pending = paused.pendingApprovals?.[0];
    expect(pending?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const stale = resumeRun({
      model: parent,
      tools,
      state: paused.state as RunState,
      approvals: { w1: { approved: true, digest: 'sha256:0000' } },
    });
    await expect(stale).rejects.toThrow(
      `Cannot decide call "w1": the decision was made on another pause (it names digest "sha256:0000", the call pending now has ${pending?.digest}).`,
    );
    expect(ran).toEqual([]);
    expect(parent.steps).toEqual([1]);
    const result = await resumeRun({
      model: parent,
      tools,
      state: paused.state as RunState,
      approvals: { w1: { approved: true, digest: pending?.digest as string } },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'parent done' });
    expect(ran).toEqual(['write {"path":"a.txt"}']);
  });

  it("resuming without the sub-agent's tool is refused naming it; nothing runs", async () => {
    const { ran, parent, tools } = family();
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    const childRunId = paused.pendingApprovals?.[0]?.runId;
    const attempt = resumeRun({ model: parent, tools: [], state: paused.state as RunState, approvals: { w1: true } });
    await expect(attempt).rejects.toThrow(
      `Cannot resume run ${paused.runId}: its sub-agent run ${childRunId} waits for approval inside call "d1" of tool "helper", which the given tools lack. Pass the tools the run had, "helper" included. Nothing was run.`,
    );
    expect(ran).toEqual([]);
    expect(parent.steps).toEqual([1]);
  });

  it('nested two levels: the grandchild call is pending in the top run with its own runId; one resume finishes all', async () => {
    const box = toolbox();
    const grandchild = stepModel('grandchild', [
      { content: '', toolCalls: [call('w1', 'write', { path: 'deep' })], usage },
      { content: 'grandchild done', usage },
    ]);
    const inner = agentTool({ model: grandchild, tools: box.tools }, { name: 'inner', description: 'd' });
    const child = stepModel('child', [
      { content: '', toolCalls: [call('i1', 'inner', { prompt: 'deeper' })], usage },
      { content: 'child done', usage },
    ]);
    const outer = agentTool({ model: child, tools: [inner] }, { name: 'outer', description: 'd' });
    const parent = stepModel('parent', [
      { content: '', toolCalls: [call('o1', 'outer', { prompt: 'go deep' })], usage },
      { content: 'parent done', usage },
    ]);
    for (const store of [undefined, memoryJournal()]) {
      box.ran.length = 0;
      for (const model of [grandchild, child, parent]) model.steps.length = 0;
      const paused = await runAgent({
        model: parent,
        tools: [outer],
        prompt: 'go',
        approve: ask,
        ...(store ? { store } : {}),
      });
      expect(paused.status).toBe('awaiting_approval');
      const pending = paused.pendingApprovals?.[0];
      expect(pending).toMatchObject({ callId: 'w1', name: 'write', arguments: { path: 'deep' } });
      expect(paused.usage).toEqual({ inputTokens: 30, outputTokens: 3 });
      if (store) {
        // The pending call's run is the grandchild's: its journal is the one waiting on w1.
        const run = await store.readRun(pending?.runId as string);
        expect(run?.events[0]).toMatchObject({ type: 'run_start', prompt: 'deeper' });
        expect(run?.status).toBe('awaiting_approval');
      }
      const result = await resumeRun({
        model: parent,
        tools: [outer],
        ...(store ? { store, runId: paused.runId } : { state: paused.state as RunState }),
        approvals: { w1: true },
      });
      expect(result).toMatchObject({
        status: 'completed',
        answer: 'parent done',
        usage: { inputTokens: 60, outputTokens: 6 },
      });
      expect(box.ran).toEqual(['write {"path":"deep"}']);
      expect([grandchild.steps, child.steps, parent.steps]).toEqual([
        [1, 2],
        [1, 2],
        [1, 2],
      ]);
    }
  });

  it('an Agent as the sub-agent keeps its conversation across the pause', async () => {
    const box = toolbox();
    const child = stepModel('child', [
      { content: '', toolCalls: [call('w1', 'write', { path: 'a' })], usage },
      { content: 'child done', usage },
    ]);
    const helper = new Agent({ model: child, tools: box.tools });
    const tools = [agentTool(helper, { name: 'helper', description: 'd' })];
    const parent = stepModel('parent', [
      { content: '', toolCalls: [call('d1', 'helper', { prompt: 'write a' })], usage },
      { content: 'parent done', usage },
    ]);
    const paused = await runAgent({ model: parent, tools, prompt: 'go', approve: ask });
    expect(paused.pendingApprovals?.[0]).toMatchObject({ callId: 'w1', name: 'write' });
    const result = await resumeRun({ model: parent, tools, state: paused.state as RunState, approvals: { w1: true } });
    expect(result.status).toBe('completed');
    expect(box.ran).toEqual(['write {"path":"a"}']);
    expect(helper.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(helper.messages.at(-1)?.content).toBe('child done');
  });

  it("a sub-agent with its own approve hook uses it; without one, the parent's decides", async () => {
    const box = toolbox();
    const child = stepModel('child', [
      { content: '', toolCalls: [call('w1', 'write', { path: 'a' })], usage },
      { content: 'child done', usage },
    ]);
    const own = agentTool(
      { model: child, tools: box.tools, approve: () => true },
      { name: 'helper', description: 'd' },
    );
    const parent = stepModel('parent', [
      { content: '', toolCalls: [call('d1', 'helper', { prompt: 'p' })], usage },
      { content: 'parent done', usage },
    ]);
    const result = await runAgent({ model: parent, tools: [own], prompt: 'go', approve: ask });
    expect(result.status).toBe('completed');
    expect(box.ran).toEqual(['write {"path":"a"}']);
    // No hook of its own: the parent's approves (before, such a call was denied for want of a hook).
    const inherits = agentTool({ model: child, tools: box.tools }, { name: 'helper', description: 'd' });
    const second = await runAgent({ model: parent, tools: [inherits], prompt: 'go', approve: () => true });
    expect(second.status).toBe('completed');
    expect(box.ran).toEqual(['write {"path":"a"}', 'write {"path":"a"}']);
  });

  it('a sub-agent whose journal cannot be written stops its parent too (JournalError), as if the process had died', async () => {
    const box = toolbox();
    const child = stepModel('child', [{ content: 'child done', usage }]);
    const broken = memoryJournal();
    broken.appendEvents = async () => {
      throw new Error('disk full');
    };
    const tools = [agentTool({ model: child, tools: box.tools, store: broken }, { name: 'helper', description: 'd' })];
    const parent = stepModel('parent', [
      { content: '', toolCalls: [call('d1', 'helper', { prompt: 'p' })], usage },
      { content: 'parent done', usage },
    ]);
    const run = runAgent({ model: parent, tools, prompt: 'go' });
    await expect(run).rejects.toMatchObject({ name: 'JournalError', code: 'journal_failed' });
    await expect(run).rejects.toThrow('disk full');
    expect(parent.steps).toEqual([1]);
  });
});
