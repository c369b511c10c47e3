// Black-box conformance to SPEC "@bridle/core": scheduling of a batch (call order, readOnly concurrency,
// one-at-a-time for the rest), observed with deferred probes resolved in a chosen order, never durations.
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { ask, type Deferred, deferred, probeTool, settle } from './conformance-helpers';

const answer = { content: 'done' };

describe('SPEC: scheduling (deferred probes resolved in a chosen order, never durations)', () => {
  /** `running` may be shared between two gated tools, to see overlaps across them. */
  function gatedTools(readOnly: boolean, running = new Set<string>(), overlaps: string[] = []) {
    const gates = new Map<string, Deferred<string>>();
    const started: string[] = [];
    const tool = probeTool(
      readOnly ? 'read' : 'write',
      async (_args, { callId }) => {
        if (!readOnly && running.size > 0) overlaps.push(`${callId} with ${[...running]}`);
        for (const other of running) if (other.startsWith('w')) overlaps.push(`${callId} with ${other}`);
        started.push(callId);
        running.add(callId);
        const gate = deferred<string>();
        gates.set(callId, gate);
        try {
          return await gate.promise;
        } finally {
          running.delete(callId);
        }
      },
      { readOnly },
    );
    return { tool, gates, started, overlaps };
  }

  it('results are appended in call order whatever order they finish in', async () => {
    const reads = gatedTools(true);
    const ids = ['r1', 'r2', 'r3'];
    const model = scriptedModel([ask(...ids.map((id): [string, string] => [id, 'read'])), answer]);
    const run = runAgent({ model, tools: [reads.tool], prompt: 'hi' });
    await settle();
    for (const id of ['r3', 'r1', 'r2']) {
      reads.gates.get(id)?.resolve(`result of ${id}`);
      await settle();
    }
    const result = await run;
    expect(result.messages.slice(2, -1).map((message) => (message as { callId: string }).callId)).toEqual(ids);
    expect(result.messages.slice(2, -1).map((message) => message.content)).toEqual(ids.map((id) => `result of ${id}`));
  });

  it('readOnly calls of one batch run concurrently, at most toolConcurrency at once', async () => {
    const reads = gatedTools(true);
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    const model = scriptedModel([ask(...ids.map((id): [string, string] => [id, 'read'])), answer]);
    const run = runAgent({ model, tools: [reads.tool], prompt: 'hi', toolConcurrency: 2 });
    await settle();
    expect(reads.started).toEqual(['r1', 'r2']);
    reads.gates.get('r2')?.resolve('2');
    await settle();
    expect(reads.started).toEqual(['r1', 'r2', 'r3']);
    reads.gates.get('r1')?.resolve('1');
    await settle();
    expect(reads.started).toEqual(['r1', 'r2', 'r3', 'r4']);
    reads.gates.get('r3')?.resolve('3');
    await settle();
    expect(reads.started).toEqual(ids);
    reads.gates.get('r5')?.resolve('5');
    reads.gates.get('r4')?.resolve('4');
    const result = await run;
    expect(result.messages.slice(2, -1).map((message) => message.content)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('the default toolConcurrency is 4', async () => {
    const reads = gatedTools(true);
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    const model = scriptedModel([ask(...ids.map((id): [string, string] => [id, 'read'])), answer]);
    const run = runAgent({ model, tools: [reads.tool], prompt: 'hi' });
    await settle();
    expect(reads.started).toEqual(['r1', 'r2', 'r3', 'r4']);
    for (const id of ids) {
      await settle();
      reads.gates.get(id)?.resolve(id);
    }
    expect((await run).status).toBe('completed');
  });

  it('non-readOnly calls run one at a time, in call order', async () => {
    const writes = gatedTools(false);
    const ids = ['w1', 'w2', 'w3'];
    const model = scriptedModel([ask(...ids.map((id): [string, string] => [id, 'write'])), answer]);
    const run = runAgent({ model, tools: [writes.tool], prompt: 'hi', toolConcurrency: 8 });
    for (const [index, id] of ids.entries()) {
      await settle();
      expect(writes.started).toEqual(ids.slice(0, index + 1));
      writes.gates.get(id)?.resolve(id);
    }
    const result = await run;
    expect(result.messages.slice(2, -1).map((message) => message.content)).toEqual(ids);
    expect(writes.overlaps).toEqual([]);
  });

  // SPEC says the non-readOnly calls run "one at a time, in call order" and is silent on whether a
  // readOnly call may overlap them. Decision (what a user of a coding agent expects): a side-effecting call
  // never overlaps any other call of its batch, so a read never observes a half-done write.
  it('a non-readOnly call never overlaps a readOnly call of the same batch', async () => {
    const running = new Set<string>();
    const overlaps: string[] = [];
    const reads = gatedTools(true, running, overlaps);
    const writes = gatedTools(false, running, overlaps);
    const model = scriptedModel([ask(['r1', 'read'], ['w1', 'write'], ['r2', 'read'], ['w2', 'write']), answer]);
    const run = runAgent({ model, tools: [reads.tool, writes.tool], prompt: 'hi' });
    for (let round = 0; round < 8; round++) {
      await settle();
      for (const gates of [reads.gates, writes.gates]) for (const gate of gates.values()) gate.resolve('ok');
    }
    const result = await run;
    expect(result.status).toBe('completed');
    expect(overlaps).toEqual([]);
    expect(result.messages.slice(2, -1).map((message) => (message as { callId: string }).callId)).toEqual([
      'r1',
      'w1',
      'r2',
      'w2',
    ]);
  });
});
