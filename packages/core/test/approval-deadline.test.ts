import type { RunEventOf, Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resumeRun, runAgent } from '../src/index';
import { call, recorder } from './helpers';

const DEADLINE_TEXT = 'No decision was made before the deadline; this is not a refusal by a person.';
const START = Date.parse('2026-12-07T10:00:00.000Z');

function risky(name: string, flags: Partial<Tool> = {}): Tool & { ran: unknown[] } {
  const ran: unknown[] = [];
  return {
    name,
    description: `${name} something`,
    parameters: { type: 'object' },
    requiresApproval: true,
    execute(args) {
      ran.push(args);
      return `${name} done`;
    },
    ...flags,
    ran,
  };
}

/** Freezes the clock (only `Date`: timers stay real) at `at`. */
function clockAt(at: number) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
}

afterEach(() => {
  vi.useRealTimers();
});

async function pause(tools: Tool[], options: { approvalTimeoutMs?: number } = {}) {
  const store = await openStore('memory:');
  const events = recorder();
  clockAt(START);
  const first = await runAgent({
    model: scriptedModel([
      { content: '', toolCalls: tools.map((tool, index) => call(`c${index + 1}`, tool.name, { n: index + 1 })) },
    ]),
    tools,
    prompt: 'go',
    approve: () => 'ask',
    store,
    onEvent: events.onEvent,
    ...options,
  });
  return { store, first, events };
}

describe('approval deadlines', () => {
  it('a pause journals each call’s deadline (the tool’s approvalTimeoutMs wins over the run’s)', async () => {
    const { store, first, events } = await pause([risky('send'), risky('pay', { approvalTimeoutMs: 1_000 })], {
      approvalTimeoutMs: 60_000,
    });
    expect(first.status).toBe('awaiting_approval');
    expect(first.pendingApprovals?.map(({ callId, deadline }) => ({ callId, deadline }))).toEqual([
      { callId: 'c1', deadline: '2026-12-07T10:01:00.000Z' },
      { callId: 'c2', deadline: '2026-12-07T10:00:01.000Z' },
    ]);
    expect(events.ofType('approval_requested')).toEqual([
      expect.objectContaining({ step: 1, callId: 'c1', name: 'send', deadline: '2026-12-07T10:01:00.000Z' }),
      expect.objectContaining({ step: 1, callId: 'c2', name: 'pay', deadline: '2026-12-07T10:00:01.000Z' }),
    ]);
    const journal = (await store.readRun(first.runId))?.events ?? [];
    const end = journal.at(-1) as RunEventOf<'run_end'>;
    expect(end.pendingApprovals?.map((pending) => pending.deadline)).toEqual([
      '2026-12-07T10:01:00.000Z',
      '2026-12-07T10:00:01.000Z',
    ]);
    expect(journal.filter((event) => event.type === 'approval_requested')).toHaveLength(2);
  });

  it('a resume before the deadline keeps the run waiting with the same deadline, asking nobody again', async () => {
    const send = risky('send');
    const { store, first } = await pause([send], { approvalTimeoutMs: 60_000 });
    clockAt(START + 59_000);
    const events = recorder();
    const again = await resumeRun({
      model: scriptedModel([]),
      tools: [send],
      store,
      runId: first.runId,
      approve: () => 'ask',
      onEvent: events.onEvent,
    });
    expect(again.status).toBe('awaiting_approval');
    expect(again.pendingApprovals?.[0]?.deadline).toBe('2026-12-07T10:01:00.000Z');
    expect(events.types()).toEqual(['run_start', 'run_end']);
    expect(send.ran).toEqual([]);
  });

  it('a deadline that passed while no process ran is applied by the next resume: denied, never as a person’s refusal', async () => {
    const send = risky('send');
    const { store, first } = await pause([send], { approvalTimeoutMs: 60_000 });
    // Another process, after the deadline: the same store, nothing else carried over.
    clockAt(START + 60_000);
    const model = scriptedModel([{ content: 'could not send' }]);
    const events = recorder();
    const result = await resumeRun({
      model,
      tools: [send],
      store: await store,
      runId: first.runId,
      approve: () => true,
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(send.ran).toEqual([]);
    expect(result.messages).toContainEqual({
      role: 'tool',
      callId: 'c1',
      name: 'send',
      content: DEADLINE_TEXT,
      isError: true,
    });
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: 'tool', content: DEADLINE_TEXT });
    expect(events.types().slice(0, 2)).toEqual(['run_start', 'approval_decided']);
    expect(events.ofType('approval_decided')).toEqual([
      expect.objectContaining({
        callId: 'c1',
        approved: false,
        decidedBy: 'timeout',
        by: 'deadline 2026-12-07T10:01:00.000Z',
      }),
    ]);
    const journal = (await store.readRun(first.runId))?.events ?? [];
    expect(journal.filter((event) => event.type === 'approval_decided')).toHaveLength(1);
  });

  it('a decision made after the deadline is refused (the call is no longer pending); nothing runs', async () => {
    const send = risky('send');
    const { store, first } = await pause([send], { approvalTimeoutMs: 60_000 });
    clockAt(START + 60_001);
    const model = scriptedModel([{ content: 'ok' }]);
    await expect(
      resumeRun({ model, tools: [send], store, runId: first.runId, approvals: { c1: true } }),
    ).rejects.toThrow(
      'Cannot decide call "c1": its deadline passed (2026-12-07T10:01:00.000Z), so it is no longer pending: resuming without a decision on it applies the deadline. Nothing was run.',
    );
    expect(model.requests).toHaveLength(0);
    expect(send.ran).toEqual([]);
    expect((await store.readRun(first.runId))?.status).toBe('awaiting_approval');
  });

  it('a tool marked autoApproveOnTimeout runs when its deadline passes', async () => {
    const sync = risky('sync', { autoApproveOnTimeout: true, approvalTimeoutMs: 10 });
    const send = risky('send');
    const { store, first } = await pause([sync, send], { approvalTimeoutMs: 60_000 });
    clockAt(START + 10);
    // sync's deadline passed, send's did not: sync is decided, send keeps waiting.
    const waiting = await resumeRun({ model: scriptedModel([]), tools: [sync, send], store, runId: first.runId });
    expect(waiting.status).toBe('awaiting_approval');
    expect(waiting.pendingApprovals?.map((pending) => pending.callId)).toEqual(['c2']);
    expect(sync.ran).toEqual([]);
    const result = await resumeRun({
      model: scriptedModel([{ content: 'ok' }]),
      tools: [sync, send],
      store,
      runId: first.runId,
      approvals: { c2: { approved: false, reason: 'not now', by: 'ada' } },
    });
    expect(result.status).toBe('completed');
    expect(sync.ran).toEqual([{ n: 1 }]);
    expect(send.ran).toEqual([]);
    const decided = (await store.readRun(first.runId))?.events.filter((event) => event.type === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({ callId: 'c1', approved: true, decidedBy: 'timeout' }),
      expect.objectContaining({ callId: 'c2', approved: false, decidedBy: 'person', by: 'ada' }),
    ]);
  });

  it('a run without a store keeps the deadline in its state and applies it on resume', async () => {
    const send = risky('send');
    clockAt(START);
    const first = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'send')] }]),
      tools: [send],
      prompt: 'go',
      approve: () => 'ask',
      approvalTimeoutMs: 1_000,
    });
    expect(first.state).toMatchObject({ batch: { deadlines: { c1: '2026-12-07T10:00:01.000Z' } } });
    clockAt(START + 5_000);
    const result = await resumeRun({
      model: scriptedModel([{ content: 'ok' }]),
      tools: [send],
      state: first.state,
    });
    expect(result.status).toBe('completed');
    expect(result.messages).toContainEqual(expect.objectContaining({ callId: 'c1', content: DEADLINE_TEXT }));
  });

  it('a decision given before the deadline wins; without a deadline a pause waits', async () => {
    const send = risky('send');
    const { store, first } = await pause([send]);
    expect(first.pendingApprovals?.[0]).not.toHaveProperty('deadline');
    clockAt(START + 365 * 24 * 3_600_000);
    const still = await resumeRun({ model: scriptedModel([]), tools: [send], store, runId: first.runId });
    expect(still.status).toBe('awaiting_approval');
    const done = await resumeRun({
      model: scriptedModel([{ content: 'sent' }]),
      tools: [send],
      store,
      runId: first.runId,
      approvals: { c1: { approved: true, decidedBy: 'policy', by: 'bridle resume --yes' } },
    });
    expect(done.status).toBe('completed');
    expect(send.ran).toEqual([{ n: 1 }]);
    const decided = (await store.readRun(first.runId))?.events.filter((event) => event.type === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({ callId: 'c1', approved: true, decidedBy: 'policy', by: 'bridle resume --yes' }),
    ]);
  });

  it('refuses a bad approvalTimeoutMs, on the run or a tool, before any model call', async () => {
    const model = scriptedModel([]);
    for (const bad of [0, -1, Number.NaN, 2_147_483_648, '5s'])
      await expect(runAgent({ model, prompt: 'x', approvalTimeoutMs: bad as number })).rejects.toThrow(
        'Invalid option approvalTimeoutMs: expected a number of milliseconds above 0',
      );
    await expect(runAgent({ model, prompt: 'x', tools: [risky('send', { approvalTimeoutMs: 0 })] })).rejects.toThrow(
      'Invalid option tools[0].approvalTimeoutMs (send)',
    );
    await expect(
      runAgent({ model, prompt: 'x', tools: [risky('send', { autoApproveOnTimeout: 'yes' as never })] }),
    ).rejects.toThrow('Invalid option tools[0].autoApproveOnTimeout (send): expected a boolean');
    expect(model.requests).toHaveLength(0);
  });
});

describe('who decided', () => {
  it('the approve hook decides as a policy, or as a person when it says so; no hook is a policy too', async () => {
    const events = recorder();
    const send = risky('send');
    const pay = risky('pay');
    const drop = risky('drop');
    const result = await runAgent({
      model: scriptedModel([
        { content: '', toolCalls: [call('c1', 'send'), call('c2', 'pay'), call('c3', 'drop')] },
        { content: 'done' },
      ]),
      tools: [send, pay, drop],
      prompt: 'go',
      approve: (toolCall) =>
        toolCall.name === 'send'
          ? true
          : toolCall.name === 'pay'
            ? { approved: false, reason: 'too much', decidedBy: 'person', by: 'ada' }
            : { approved: true, by: 'rule drop' },
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(events.ofType('approval_decided')).toEqual([
      expect.objectContaining({ callId: 'c1', approved: true, decidedBy: 'policy' }),
      expect.objectContaining({ callId: 'c2', approved: false, decidedBy: 'person', by: 'ada' }),
      expect.objectContaining({ callId: 'c3', approved: true, decidedBy: 'policy', by: 'rule drop' }),
    ]);
    expect(result.messages).toContainEqual(expect.objectContaining({ callId: 'c2', content: 'Denied: too much' }));
    expect(send.ran).toHaveLength(1);
    expect(pay.ran).toHaveLength(0);
    expect(drop.ran).toHaveLength(1);

    const none = recorder();
    await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'send')] }, { content: 'done' }]),
      tools: [risky('send')],
      prompt: 'go',
      onEvent: none.onEvent,
    });
    expect(none.ofType('approval_decided')).toEqual([
      expect.objectContaining({ callId: 'c1', approved: false, decidedBy: 'policy', by: 'no approve hook' }),
    ]);
  });

  it('refuses a decision with a bad by or decidedBy', async () => {
    const send = risky('send');
    const { store, first } = await pause([send]);
    for (const bad of [
      { approved: true, by: 7 },
      { approved: true, by: 'x'.repeat(257) },
      { approved: true, decidedBy: 'timeout' },
    ])
      await expect(
        resumeRun({
          model: scriptedModel([]),
          tools: [send],
          store,
          runId: first.runId,
          approvals: { c1: bad as never },
        }),
      ).rejects.toThrow('Invalid option approvals["c1"]');
    expect(send.ran).toEqual([]);
  });
});
