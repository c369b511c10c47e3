import { createHash } from 'node:crypto';
import { ConfigError, type RunEventOf, type Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { manifestToolChanges, resumeRun, runAgent } from '../src/index';
import { addTool, call, recorder, tool } from './helpers';

const digest = (schema: unknown) => `sha256:${createHash('sha256').update(JSON.stringify(schema)).digest('hex')}`;

function remove(): Tool & { ran: unknown[] } {
  const ran: unknown[] = [];
  return {
    name: 'remove',
    description: 'Remove a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    requiresApproval: true,
    execute(args) {
      ran.push(args);
      return 'removed';
    },
    ran,
  };
}

/** A journaled run that paused on a call to `remove` (so it can be resumed). */
async function pausedRun(tools: Tool[]) {
  const store = await openStore('memory:');
  const first = await runAgent({
    model: scriptedModel([{ content: '', toolCalls: [call('c1', 'remove', { path: 'a.txt' })] }]),
    tools,
    prompt: 'tidy up',
    approve: () => 'ask',
    store,
  });
  expect(first.status).toBe('awaiting_approval');
  return { store, runId: first.runId };
}

describe('run manifest', () => {
  it("a journaled run's first run_start carries what it ran with, without credentials", async () => {
    const store = await openStore('memory:');
    const events = recorder();
    const add = addTool();
    const result = await runAgent({
      model: scriptedModel([{ content: 'done' }], {
        id: 'openai-compatible:https://ada:s3cret@llm.example/v1?key=k1#m',
      }),
      tools: [add],
      prompt: 'hi',
      store,
      maxSteps: 4,
      timeoutMs: 60_000,
      approvalTimeoutMs: 5_000,
      budget: { maxCostUsd: 2 },
      manifest: {
        skills: ['coding'],
        workspace: '/work/project',
        presets: [{ name: 'test', definition: { command: 'npm', args: ['test'] } }],
        mcpServers: ['files'],
      },
      onEvent: events.onEvent,
    });
    const start = events.ofType('run_start')[0] as RunEventOf<'run_start'>;
    expect(start.manifest).toEqual({
      model: 'openai-compatible:https://llm.example/v1#m',
      skills: ['coding'],
      workspace: '/work/project',
      presets: [{ name: 'test', definition: { command: 'npm', args: ['test'] } }],
      mcpServers: ['files'],
      // Canonical JSON: keys sorted at every level.
      tools: [
        {
          name: 'add',
          schemaDigest: digest({
            additionalProperties: false,
            properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
            type: 'object',
          }),
        },
      ],
      limits: { maxSteps: 4, timeoutMs: 60_000, budget: { maxCostUsd: 2 }, approvalTimeoutMs: 5_000 },
    });
    expect(JSON.stringify(start)).not.toContain('s3cret');
    expect(JSON.stringify(start)).not.toContain('k1');
    const stored = await store.readRun(result.runId);
    expect(stored?.events[0]).toMatchObject({ type: 'run_start', manifest: start.manifest });
  });

  it('a run without a store journals nothing and carries no manifest', async () => {
    const events = recorder();
    await runAgent({ model: scriptedModel([{ content: 'done' }]), prompt: 'hi', onEvent: events.onEvent });
    expect(events.ofType('run_start')[0]).not.toHaveProperty('manifest');
  });

  it('resumeRun refuses other tools before any model call, naming the difference; the run stays resumable (resumed segments carry no manifest)', async () => {
    const original = remove();
    const add = addTool();
    const { store, runId } = await pausedRun([original, add]);
    const model = scriptedModel([{ content: 'done' }]);
    // Missing a tool.
    await expect(resumeRun({ model, tools: [original], store, runId, approvals: { c1: true } })).rejects.toThrow(
      `Run ${runId} was journaled with other tools than these (missing "add"). Give it the tools its manifest lists`,
    );
    // An extra tool, and one whose argument schema changed.
    const changed = { ...remove(), parameters: { type: 'object', properties: { file: { type: 'string' } } } };
    const extra = tool('clock', () => 'noon');
    await expect(
      resumeRun({ model, tools: [changed, add, extra], store, runId, approvals: { c1: true } }),
    ).rejects.toThrow('(not in the run "clock"; with another argument schema "remove")');
    await expect(resumeRun({ model, tools: [changed, add], store, runId })).rejects.toBeInstanceOf(ConfigError);
    expect(model.requests).toHaveLength(0);
    expect(original.ran).toEqual([]);
    expect((await store.readRun(runId))?.status).toBe('awaiting_approval');
    // With the tools it had, it continues.
    const result = await resumeRun({ model, tools: [original, add], store, runId, approvals: { c1: true } });
    expect(result.status).toBe('completed');
    expect(original.ran).toEqual([{ path: 'a.txt' }]);
    const starts = (await store.readRun(runId))?.events.filter((event) => event.type === 'run_start') ?? [];
    expect(starts.map((start) => 'manifest' in start)).toEqual([true, false]);
  });

  it('allowToolChanges: true continues with other tools', async () => {
    const original = remove();
    const { store, runId } = await pausedRun([original, addTool()]);
    const result = await resumeRun({
      model: scriptedModel([{ content: 'done' }]),
      tools: [original, tool('clock', () => 'noon')],
      store,
      runId,
      approvals: { c1: true },
      allowToolChanges: true,
    });
    expect(result.status).toBe('completed');
    expect(original.ran).toEqual([{ path: 'a.txt' }]);
  });

  it('refuses invalid manifest and allowToolChanges options', async () => {
    const model = scriptedModel([]);
    await expect(
      runAgent({ model, prompt: 'x', manifest: { skills: 'coding' as unknown as string[] } }),
    ).rejects.toThrow('Invalid option manifest.skills: expected an array of strings');
    await expect(runAgent({ model, prompt: 'x', manifest: { token: 'x' } as never })).rejects.toThrow(
      'Unknown option manifest.token',
    );
    await expect(
      runAgent({ model, prompt: 'x', manifest: { presets: [{ name: 'p', definition: () => 1 }] } as never }),
    ).rejects.toThrow('Invalid option manifest.presets');
    await expect(runAgent({ model, prompt: 'x', manifest: { presetsSignature: 42 } as never })).rejects.toThrow(
      'Invalid option manifest.presetsSignature: expected a string of at most 200 characters',
    );
    await expect(resumeRun({ model, runId: 'r', allowToolChanges: 'yes' } as never)).rejects.toThrow(
      'Invalid option allowToolChanges: expected a boolean',
    );
    await expect(resumeRun({ model, runId: 'r', manifest: {} } as never)).rejects.toThrow('Unknown option manifest');
    expect(model.requests).toHaveLength(0);
  });

  it('manifestToolChanges names the tools missing, added and with another argument schema; presetsSignature is journaled as given', async () => {
    const store = await openStore('memory:');
    const result = await runAgent({
      model: scriptedModel([{ content: 'done' }]),
      tools: [remove(), tool('clock', () => 'noon')],
      prompt: 'x',
      store,
      manifest: { presets: [{ name: 'test', definition: { executable: 'npm' } }], presetsSignature: 'app:signed' },
    });
    const start = (await store.readRun(result.runId))?.events[0] as RunEventOf<'run_start'>;
    const manifest = start.manifest as NonNullable<typeof start.manifest>;
    expect(manifest.presetsSignature).toBe('app:signed');
    const changed = { ...remove(), parameters: { type: 'object', properties: {} } };
    expect(manifestToolChanges(manifest, [changed, tool('calculator', () => '4')])).toEqual({
      missing: ['clock'],
      added: ['calculator'],
      changed: ['remove'],
    });
    expect(manifestToolChanges(manifest, [remove(), tool('clock', () => 'noon')])).toEqual({
      missing: [],
      added: [],
      changed: [],
    });
    await store.close();
  });
});
