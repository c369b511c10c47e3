// Issue 28 item 2: decisions kept in a state or a journal are authenticated with `decisionKey` (HMAC), so
// a state or journal written by anyone else (a browser, a job payload, a file, a store planted in a cloned
// folder) cannot pre-approve a call: a decision that does not verify is put to `approve` again.
import { createHash, randomBytes } from 'node:crypto';
import { ConfigError, type RunEvent, type RunState, type Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { type ApproveHook, resumeRun, runAgent } from '../src/index';
import { call } from './helpers';
import { memoryJournal } from './test-stores';

const KEY = randomBytes(32);
const OTHER_KEY = randomBytes(32);

/** `rm` and `send` need approval; each records what ran. */
function toolbox() {
  const ran: string[] = [];
  const make = (name: string): Tool => ({
    name,
    description: name,
    parameters: { type: 'object' },
    requiresApproval: true,
    execute: (args) => {
      ran.push(`${name}:${JSON.stringify(args)}`);
      return `${name} done`;
    },
  });
  return { ran, tools: [make('rm'), make('send')] };
}

const batch = { content: 'working', toolCalls: [call('b', 'rm', { path: 'x' }), call('c', 'send', { to: 'ada' })] };

/** Asks a person about rm; approves send itself (a policy decision kept in the state). */
const policy: ApproveHook = (toolCall) => (toolCall.name === 'rm' ? 'ask' : true);

/** Records what `approve` was asked at resume, and refuses it (a run without a terminal). */
function refusing(asked: string[]): ApproveHook {
  return (toolCall) => {
    asked.push(toolCall.id);
    return false;
  };
}

/** The state's digest recomputed the way anyone can (a plain SHA-256 of sorted JSON): what a forger does. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function redigest(state: Record<string, unknown>): RunState {
  const { digest: _digest, ...content } = state;
  return { ...content, digest: `sha256:${createHash('sha256').update(canonical(content)).digest('hex')}` } as RunState;
}

/** A state as plain JSON, to tamper with. */
type StateJson = Record<string, unknown> & {
  batch: { decisions: object; asked: string[]; calls: { arguments: unknown }[]; decisionsSignature?: string };
};

/** A state whose batch says every call was approved and none waits (a forged "already approved" pause). */
function forgeApproved(state: RunState, signature?: string): RunState {
  const copy = JSON.parse(JSON.stringify(state)) as StateJson;
  copy.batch.decisions = { b: true, c: true };
  copy.batch.asked = [];
  if (signature === undefined) copy.batch.decisionsSignature = undefined;
  else copy.batch.decisionsSignature = signature;
  return redigest(copy);
}

describe('decisionKey: decisions kept in a state', () => {
  it('signs the decisions of a paused state; the same key applies them at resume', async () => {
    const { ran, tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'go',
      approve: policy,
      decisionKey: KEY,
    });
    expect(first.status).toBe('awaiting_approval');
    const state = first.state as RunState & { batch: { decisionsSignature: string; decisions: object } };
    expect(state.batch.decisions).toEqual({ c: true });
    expect(state.batch.decisionsSignature).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const asked: string[] = [];
    const result = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      state: first.state,
      approvals: { b: true },
      approve: refusing(asked),
      decisionKey: Uint8Array.from(KEY),
    });
    expect(result.status).toBe('completed');
    expect(asked).toEqual([]);
    expect(ran).toEqual(['rm:{"path":"x"}', 'send:{"to":"ada"}']);
  });

  it('puts decisions that do not verify (another key: another process, another user) to approve again', async () => {
    const { ran, tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'go',
      approve: policy,
      decisionKey: KEY,
    });
    const asked: string[] = [];
    const result = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      state: first.state,
      approvals: { b: true },
      approve: refusing(asked),
      decisionKey: OTHER_KEY,
    });
    expect(asked).toEqual(['c']);
    expect(ran).toEqual(['rm:{"path":"x"}']);
    expect(result.messages.find((message) => message.role === 'tool' && message.callId === 'c')).toMatchObject({
      content: 'Denied: the approve hook refused this call to send.',
    });
  });

  it.each([
    ['without a signature', undefined],
    ['with a made-up signature', `hmac-sha256:${'0'.repeat(64)}`],
  ])('a forged "already approved" state %s pre-approves nothing: denied without a hook', async (_name, signature) => {
    const { ran, tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'go',
      approve: policy,
      decisionKey: KEY,
    });
    const forged = forgeApproved(first.state as RunState, signature);
    const result = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      state: forged,
      decisionKey: KEY,
    });
    expect(ran).toEqual([]);
    expect(result.status).toBe('completed');
    const denials = result.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(denials).toEqual([
      'Denied: rm requires approval and no approve hook is configured.',
      'Denied: send requires approval and no approve hook is configured.',
    ]);
  });

  it('a signed decision moved to other arguments does not verify (bound to the call)', async () => {
    const { ran, tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'go',
      approve: policy,
      decisionKey: KEY,
    });
    const copy = JSON.parse(JSON.stringify(first.state)) as StateJson;
    (copy.batch.calls[1] as { arguments: unknown }).arguments = { to: 'mallory' };
    const asked: string[] = [];
    await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      state: redigest(copy),
      approvals: { b: false },
      approve: refusing(asked),
      decisionKey: KEY,
    });
    expect(asked).toEqual(['c']);
    expect(ran).toEqual([]);
  });
});

describe('decisionKey: decisions kept in a journal', () => {
  async function pausedInStore() {
    const store = memoryJournal();
    const { tools } = toolbox();
    const first = await runAgent({
      model: scriptedModel([batch]),
      tools,
      prompt: 'go',
      approve: policy,
      store,
      decisionKey: KEY,
    });
    return { store, runId: first.runId };
  }

  it("journals a resumed segment's approvals with their signature", async () => {
    const { store, runId } = await pausedInStore();
    const { tools } = toolbox();
    await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      store,
      runId,
      approvals: { b: true },
      decisionKey: KEY,
    });
    const starts = (store.runs.get(runId) as RunEvent[]).filter((event) => event.type === 'run_start');
    expect(starts[1]).toMatchObject({
      resumed: true,
      approvals: { b: true },
      approvalsSignature: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
    });
  });

  it('a forged approved pause in the journal (run_end state) is asked again', async () => {
    const { store, runId } = await pausedInStore();
    const events = store.runs.get(runId) as RunEvent[];
    const end = events.at(-1) as Extract<RunEvent, { type: 'run_end' }>;
    end.state = forgeApproved(end.state as RunState);
    end.pendingApprovals = [];
    const { ran, tools } = toolbox();
    const asked: string[] = [];
    await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools,
      store,
      runId,
      approve: refusing(asked),
      decisionKey: KEY,
    });
    expect(asked).toEqual(['b', 'c']);
    expect(ran).toEqual([]);
  });

  it("a planted resumed segment's approvals (a crash after them) are asked again, signed or not with another key", async () => {
    for (const signature of [undefined, 'other-key']) {
      const { store, runId } = await pausedInStore();
      const events = store.runs.get(runId) as RunEvent[];
      const last = events.at(-1) as RunEvent;
      const approvals = { b: true } as const;
      let approvalsSignature: string | undefined;
      if (signature === 'other-key') {
        // A real segment written with another key: resumed, then its process died before any tool ran.
        const other = memoryJournal();
        const { tools } = toolbox();
        const paused = await runAgent({
          model: scriptedModel([batch]),
          tools,
          prompt: 'go',
          approve: policy,
          store: other,
          runId,
          decisionKey: OTHER_KEY,
        });
        expect(paused.status).toBe('awaiting_approval');
        await resumeRun({
          model: scriptedModel([{ content: 'done' }]),
          tools,
          store: other,
          runId,
          approvals: { b: true },
          decisionKey: OTHER_KEY,
        });
        const start = (other.runs.get(runId) as RunEvent[]).filter((event) => event.type === 'run_start')[1];
        approvalsSignature = (start as { approvalsSignature?: string }).approvalsSignature;
        expect(approvalsSignature).toMatch(/^hmac-sha256:/);
      }
      events.push({
        type: 'run_start',
        runId,
        sequence: last.sequence + 1,
        timestamp: last.timestamp,
        model: 'scripted',
        resumed: true,
        approvals,
        ...(approvalsSignature === undefined ? {} : { approvalsSignature }),
      } as RunEvent);
      const { ran, tools } = toolbox();
      const asked: string[] = [];
      await resumeRun({
        model: scriptedModel([{ content: 'done' }]),
        tools,
        store,
        runId,
        approve: refusing(asked),
        decisionKey: KEY,
      });
      // send was approved by this user's own policy before the pause (signed with KEY): that decision holds.
      expect(asked).toEqual(['b']);
      expect(ran).toEqual(['send:{"to":"ada"}']);
    }
  });
});

describe('decisionKey option', () => {
  it.each([
    ['a short string', 'too-short-secret'],
    ['a short buffer', new Uint8Array(16)],
    ['a number', 42],
  ])('refuses %s with a ConfigError that never repeats the secret', async (_name, decisionKey) => {
    const error = await runAgent({
      model: scriptedModel([{ content: 'x' }]),
      prompt: 'go',
      decisionKey: decisionKey as never,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid option decisionKey: expected a secret of at least 32 bytes/);
    expect((error as Error).message).not.toContain('too-short-secret');
  });
});
