// A decision applies only to the pause it was made on: call ids are unique within a run (a reused id is
// renamed), and a decision may name the digest of the pending call it was made on.
import { ConfigError, type Message, type Tool } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { resumeRun, runAgent } from '../src/index';
import { call, recorder } from './helpers';
import { memoryJournal } from './test-stores';

/** `write` requires approval and records what ran, with the call id its context gave. */
function writeTool() {
  const ran: { callId: string; args: unknown }[] = [];
  const tool: Tool = {
    name: 'write',
    description: 'writes a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    requiresApproval: true,
    execute: (args, context) => {
      ran.push({ callId: context.callId, args });
      return 'written';
    },
  };
  return { ran, tool };
}

/** The model asks for write `call_1` twice (the second time with other arguments), then answers. */
const reusing = () =>
  scriptedModel([
    { content: '', toolCalls: [call('call_1', 'write', { path: 'notes.txt' })] },
    { content: '', toolCalls: [call('call_1', 'write', { path: '.github/workflows/ci.yml' })] },
    { content: 'done' },
  ]);

describe('call ids are unique within a run', () => {
  it('a reused id is renamed <id>-2 everywhere: transcript, events, tool context (the model sees it too)', async () => {
    const { ran, tool } = writeTool();
    const events = recorder();
    const model = reusing();
    const result = await runAgent({ model, tools: [tool], prompt: 'go', approve: () => true, onEvent: events.onEvent });
    expect(result.status).toBe('completed');
    expect(ran).toEqual([
      { callId: 'call_1', args: { path: 'notes.txt' } },
      { callId: 'call_1-2', args: { path: '.github/workflows/ci.yml' } },
    ]);
    expectValidTranscript(result.messages);
    const second = result.messages[3] as Extract<Message, { role: 'assistant' }>;
    expect(second.toolCalls?.map((toolCall) => toolCall.id)).toEqual(['call_1-2']);
    expect(result.messages[4]).toMatchObject({ role: 'tool', callId: 'call_1-2' });
    expect(events.ofType('tool_start').map((event) => event.callId)).toEqual(['call_1', 'call_1-2']);
    expect(events.ofType('model_end')[1]?.response?.toolCalls?.[0]?.id).toBe('call_1-2');
    // The provider is sent the renamed id with its result: a consistent transcript.
    expect(JSON.stringify(model.requests[2]?.messages)).toContain('"callId":"call_1-2"');
  });

  it('ids of the given transcript count as seen; a rename skips ids already taken', async () => {
    const { ran, tool } = writeTool();
    const history: Message[] = [
      { role: 'user', content: 'before' },
      { role: 'assistant', content: '', toolCalls: [call('c', 'write', { path: 'a' })] },
      { role: 'tool', callId: 'c', name: 'write', content: 'written', isError: false },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'again' },
    ];
    const model = scriptedModel([
      { content: '', toolCalls: [call('c', 'write', { path: 'b' }), call('c-2', 'write', { path: 'c' })] },
      { content: 'done' },
    ]);
    const result = await runAgent({ model, tools: [tool], messages: history, approve: () => true });
    expect(result.status).toBe('completed');
    expect(ran.map((entry) => entry.callId)).toEqual(['c-3', 'c-2']);
    expectValidTranscript(result.messages);
  });
});

describe('a decision applies only to the pause it was made on', () => {
  for (const journaled of [false, true]) {
    it(`resumeRun refuses a decision repeated after the model reused the id (${journaled ? 'store' : 'state'})`, async () => {
      const { ran, tool } = writeTool();
      const store = journaled ? memoryJournal() : undefined;
      const model = reusing();
      const options = { model, tools: [tool], approve: () => 'ask' as const, ...(store ? { store } : {}) };
      const first = await runAgent({ ...options, prompt: 'go' });
      expect(first.pendingApprovals?.map((pending) => pending.callId)).toEqual(['call_1']);
      const where = (result: typeof first) => (store ? { runId: result.runId } : { state: result.state });
      const second = await resumeRun({ ...options, ...where(first), approvals: { call_1: true } });
      expect(second.status).toBe('awaiting_approval');
      expect(second.pendingApprovals).toEqual([
        {
          callId: 'call_1-2',
          name: 'write',
          arguments: { path: '.github/workflows/ci.yml' },
          digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        },
      ]);
      expect(second.pendingApprovals?.[0]?.digest).not.toBe(first.pendingApprovals?.[0]?.digest);
      // A client retrying its decision after a timeout: the call it decided is no longer pending.
      const retried = resumeRun({ ...options, ...where(second), approvals: { call_1: true } });
      await expect(retried).rejects.toThrow(ConfigError);
      await expect(resumeRun({ ...options, ...where(second), approvals: { call_1: true } })).rejects.toThrow(
        'Cannot decide call "call_1": it is not pending in run',
      );
      expect(ran.map((entry) => entry.args)).toEqual([{ path: 'notes.txt' }]);
      // A decision that names the first pause's digest does not apply to the new call either.
      const stale = { approved: true as const, digest: first.pendingApprovals?.[0]?.digest as string };
      await expect(resumeRun({ ...options, ...where(second), approvals: { 'call_1-2': stale } })).rejects.toThrow(
        `Cannot decide call "call_1-2": the decision was made on another pause (it names digest "${stale.digest}", the call pending now has ${second.pendingApprovals?.[0]?.digest}). Nothing was run`,
      );
      expect(ran).toHaveLength(1);
      // The decision made on this pause, with its digest, runs the call it names.
      const digest = second.pendingApprovals?.[0]?.digest as string;
      const third = await resumeRun({
        ...options,
        ...where(second),
        approvals: { 'call_1-2': { approved: true, digest } },
      });
      expect(third.status).toBe('completed');
      expect(ran.map((entry) => entry.args)).toEqual([{ path: 'notes.txt' }, { path: '.github/workflows/ci.yml' }]);
      expectValidTranscript(third.messages);
    });
  }

  it('a denial may name its digest and give a reason; the digest binds the run id too', async () => {
    const { ran, tool } = writeTool();
    const paused = await runAgent({ model: reusing(), tools: [tool], prompt: 'go', approve: () => 'ask' });
    const other = await runAgent({ model: reusing(), tools: [tool], prompt: 'go', approve: () => 'ask' });
    // Same call id, name and arguments in another run: another digest.
    expect(other.pendingApprovals?.[0]?.digest).not.toBe(paused.pendingApprovals?.[0]?.digest);
    const model = scriptedModel([{ content: 'fine' }]);
    const foreign = { approved: true as const, digest: other.pendingApprovals?.[0]?.digest as string };
    await expect(
      resumeRun({ model, tools: [tool], state: paused.state, approvals: { call_1: foreign } }),
    ).rejects.toThrow('Cannot decide call "call_1": the decision was made on another pause');
    const digest = paused.pendingApprovals?.[0]?.digest as string;
    const denied = await resumeRun({
      model,
      tools: [tool],
      state: paused.state,
      approvals: { call_1: { approved: false, reason: 'not now', digest } },
    });
    expect(denied.status).toBe('completed');
    expect(denied.messages[2]).toMatchObject({ role: 'tool', callId: 'call_1', content: 'Denied: not now' });
    expect(ran).toEqual([]);
    await expect(
      resumeRun({
        model,
        tools: [tool],
        state: paused.state,
        approvals: { call_1: { approved: true, reason: 'x' } as never },
      }),
    ).rejects.toThrow('Invalid option approvals["call_1"]');
  });
});
