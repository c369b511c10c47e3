// A parent whose sub-agent pauses for approval, killed with SIGKILL after each journal write of the
// pausing run and of the resuming run: resuming the parent from the store always ends with both journals
// consistent, no model call made twice, `write` (not idempotent) at most once and `send` exactly once.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { assertTranscript, type RunEvent } from '@bridle/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type AgentResult, resumeRun, runAgent } from '../src/index';
import { crashDir, removeCrashDirs, runChild } from './crash-child';
import { toolLog } from './fixtures/durable-agent';
import { askAboutSend, FAMILY_DECISION_KEY, familyTools, parentModel } from './fixtures/sub-agent-family';
import { fileJournal } from './test-stores';

afterAll(removeCrashDirs);

/** The sub-agent's run id: the journal in `dir` that is not the parent's. */
function childRunId(dir: string): string | undefined {
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.jsonl') && name !== 'run-1.jsonl');
  return file?.slice(0, -'.jsonl'.length);
}

async function journal(dir: string, runId: string | undefined): Promise<RunEvent[]> {
  return runId === undefined ? [] : ((await fileJournal(dir).readRun(runId))?.events ?? []);
}

const answered = (events: RunEvent[]) =>
  events.filter((event) => event.type === 'model_end').map((event) => event.step);

/** A resume in this process, with fresh models that record the steps they are asked. */
async function resumeHere(dir: string, approvals?: Record<string, boolean>) {
  const family = familyTools(path.join(dir, 'tools.log'));
  const parent = parentModel();
  const result = await resumeRun({
    model: parent,
    tools: family.tools,
    store: fileJournal(dir),
    runId: 'run-1',
    approve: askAboutSend,
    decisionKey: FAMILY_DECISION_KEY,
    ...(approvals ? { approvals } : {}),
  });
  return { result, parentCalls: parent.calls, childCalls: family.child.calls };
}

/** The rules every ending keeps: one answer, each model step once, each tool as its flags allow, clean journals. */
async function expectFinished(dir: string, result: AgentResult) {
  const child = childRunId(dir) as string;
  assertTranscript(result.messages);
  expect(result).toMatchObject({ status: 'completed', answer: 'parent done', steps: 2, toolCalls: 1 });
  expect(result.messages[2]).toMatchObject({ role: 'tool', callId: 'd1', content: 'done', isError: false });
  // Parent 100 + 200 input tokens, the sub-agent 10 + 20 + 30: each model call counted once.
  expect(result.usage).toEqual({ inputTokens: 360, outputTokens: 36 });
  const log = toolLog(path.join(dir, 'tools.log'));
  expect(log.filter((line) => line.startsWith('write ')).length).toBeLessThanOrEqual(1);
  expect(log.filter((line) => line.startsWith('send '))).toEqual([`send ${child}:s1`]);
  for (const [runId, steps] of [
    ['run-1', [1, 2]],
    [child, [1, 2, 3]],
  ] as const) {
    const events = await journal(dir, runId);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
    expect(answered(events)).toEqual(steps);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
    expect(events.every((event) => event.runId === runId && event.parentRunId === undefined)).toBe(true);
  }
}

// Generous: each child is a real process started on a loaded machine.
const TIMEOUT = 120_000;

describe('a paused sub-agent and its parent, killed after each journal write', () => {
  it(
    'while pausing: recovery pauses the parent with the sub-agent call; approving then finishes both',
    async () => {
      let points = 0;
      for (let append = 1; ; append++) {
        const run = await runChild({ CHILD_MODE: 'sub-agent', CHILD_HANG: `append:${append}` });
        if (run.ended !== 'SIGKILL') break;
        points++;
        const child = childRunId(run.dir);
        const parentBefore = answered(await journal(run.dir, 'run-1'));
        const childBefore = answered(await journal(run.dir, child));
        const paused = await resumeHere(run.dir);
        expect(paused.result.status).toBe('awaiting_approval');
        const runId = childRunId(run.dir) as string;
        const digest = `sha256:${createHash('sha256')
          .update(JSON.stringify({ arguments: { to: 'ada' }, callId: 's1', name: 'send', runId }))
          .digest('hex')}`;
        expect(paused.result.pendingApprovals).toEqual([
          { callId: 's1', name: 'send', arguments: { to: 'ada' }, runId, digest },
        ]);
        // A model call whose response was journaled is never made again, in either run.
        for (const step of paused.parentCalls) expect(parentBefore).not.toContain(step);
        for (const step of paused.childCalls) expect(childBefore).not.toContain(step);
        const { result } = await resumeHere(run.dir, { s1: true });
        await expectFinished(run.dir, result);
      }
      // run_start, the parent's step 1 with its tool_start, six writes of the sub-agent up to its pause.
      expect(points).toBeGreaterThanOrEqual(8);
    },
    TIMEOUT * 10,
  );

  it(
    'while resuming with a decision: recovery finishes both runs, asking again only when the decision was not journaled',
    async () => {
      let points = 0;
      for (let append = 1; ; append++) {
        const dir = crashDir();
        const family = familyTools(path.join(dir, 'tools.log'));
        const paused = await runAgent({
          model: parentModel(),
          tools: family.tools,
          prompt: 'go',
          store: fileJournal(dir),
          runId: 'run-1',
          approve: askAboutSend,
        });
        expect(paused.status).toBe('awaiting_approval');
        const run = await runChild({ CHILD_MODE: 'sub-agent-approve', CHILD_HANG: `append:${append}` }, dir);
        if (run.ended !== 'SIGKILL') {
          await expectFinished(dir, (await resumeHere(dir)).result);
          break;
        }
        points++;
        const parentEvents = await journal(dir, 'run-1');
        const decided = parentEvents.some((event) => event.type === 'run_start' && event.approvals !== undefined);
        const childBefore = answered(await journal(dir, childRunId(dir)));
        let recovered = await resumeHere(dir);
        for (const step of recovered.childCalls) expect(childBefore).not.toContain(step);
        // The decision is journaled with the parent's resumed segment: once there, nobody is asked again.
        expect(recovered.result.status).toBe(decided ? 'completed' : 'awaiting_approval');
        if (!decided) recovered = await resumeHere(dir, { s1: true });
        await expectFinished(dir, recovered.result);
      }
      // The parent's resumed run_start, its tool_start, the sub-agent's segment, the parent's end.
      expect(points).toBeGreaterThanOrEqual(6);
    },
    TIMEOUT * 10,
  );
});
