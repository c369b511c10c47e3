// Crash recovery: a real child process runs a journaled agent and is killed with SIGKILL at several
// points (during a model call, during a tool, after each journal write); the test process then resumes
// the run from the journal with resumeRun and checks the rules of SPEC "@bridle/core additions".
import fs from 'node:fs';
import path from 'node:path';
import { assertTranscript, type RunEvent, type RunState } from '@bridle/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeRun } from '../src/index';
import { removeCrashDirs, runChild } from './crash-child';
import { durableModel, durableTools, TOTAL_STEPS, toolLog } from './fixtures/durable-agent';
import { fileJournal } from './test-stores';

afterAll(removeCrashDirs);

async function journal(dir: string): Promise<RunEvent[]> {
  return (await fileJournal(dir).readRun('run-1'))?.events ?? [];
}

/** Resumes run-1 in this process and checks the invariants every recovery must keep. */
async function resumeAndCheck(dir: string) {
  const before = await journal(dir);
  const answeredSteps = before.filter((event) => event.type === 'model_end').map((event) => event.step);
  const startedWithoutEnd = (name: string) =>
    before.some((event) => event.type === 'tool_start' && event.name === name) &&
    !before.some((event) => event.type === 'tool_end' && event.name === name);
  const writeCut = startedWithoutEnd('write');
  const logBefore = toolLog(path.join(dir, 'tools.log'));
  const model = durableModel();
  const result = await resumeRun({
    model,
    tools: durableTools(path.join(dir, 'tools.log')),
    store: fileJournal(dir),
    runId: 'run-1',
  });
  const after = await journal(dir);
  const log = toolLog(path.join(dir, 'tools.log'));

  assertTranscript(result.messages);
  expect(result).toMatchObject({ status: 'completed', answer: 'done', steps: TOTAL_STEPS, runId: 'run-1' });
  expect(result.usage).toEqual({ inputTokens: 60, outputTokens: 6 });
  // A model call that completed (its model_end is journaled) is never made again.
  for (const step of model.calls) expect(answeredSteps).not.toContain(step);
  expect(model.calls).toEqual(
    Array.from({ length: TOTAL_STEPS - answeredSteps.length }, (_, i) => answeredSteps.length + i + 1),
  );
  const modelEnds = after.filter((event) => event.type === 'model_end').map((event) => event.step);
  expect(modelEnds).toEqual([1, 2, 3]);
  // The journal stays one numbered sequence; the resumed segment opens with run_start resumed.
  expect(after.map((event) => event.sequence)).toEqual(after.map((_, index) => index));
  expect(after[before.length]).toMatchObject({ type: 'run_start', resumed: true });
  expect(after.filter((event) => event.type === 'run_end')).toHaveLength(1);
  // `write` has effects and is not idempotent: it never runs twice; a cut one is answered Interrupted.
  expect(log.filter((line) => line.startsWith('write ')).length).toBeLessThanOrEqual(1);
  const writeResult = result.messages.find((message) => message.role === 'tool' && message.name === 'write');
  if (writeCut) {
    expect(writeResult).toMatchObject({
      content: 'Interrupted: this call may or may not have run; check before retrying',
      isError: true,
    });
    expect(log.slice(logBefore.length).some((line) => line.startsWith('write '))).toBe(false);
  } else expect(writeResult).toMatchObject({ content: 'write ok', isError: false });
  // Idempotent tools get the same key every time they run.
  for (const line of log.filter((entry) => entry.startsWith('send '))) expect(line).toBe('send run-1:s1');
  return { before, after, result, log, model };
}

// Generous: each child is a real process started on a loaded machine.
const TIMEOUT = 120_000;

describe('crash recovery after SIGKILL of a real process', () => {
  it(
    'killed during the second model call: the first is not repeated',
    async () => {
      const run = await runChild({ CHILD_HANG: 'model:2' });
      expect(run.ended).toBe('SIGKILL');
      const { before, log } = await resumeAndCheck(run.dir);
      expect(before.filter((event) => event.type === 'model_end')).toHaveLength(1);
      expect(log).toEqual(['write run-1:w1', 'read run-1:r1', 'send run-1:s1']);
    },
    TIMEOUT,
  );

  it(
    'killed during the first model call: the journal has run_start, and the run starts over',
    async () => {
      const run = await runChild({ CHILD_HANG: 'model:1' });
      const { before } = await resumeAndCheck(run.dir);
      expect(before.map((event) => event.type)).toEqual(['run_start']);
    },
    TIMEOUT,
  );

  it(
    'killed during a tool that is not idempotent: it gets Interrupted and is not run again',
    async () => {
      const run = await runChild({ CHILD_HANG: 'tool:write' });
      const { log, result } = await resumeAndCheck(run.dir);
      expect(log).toEqual(['read run-1:r1', 'send run-1:s1']);
      expect(result.messages[2]).toMatchObject({ name: 'write', isError: true });
    },
    TIMEOUT,
  );

  it(
    'killed during an idempotent tool: it runs again with the same idempotencyKey',
    async () => {
      const run = await runChild({ CHILD_HANG: 'tool:send' });
      const { log } = await resumeAndCheck(run.dir);
      expect(log).toEqual(['write run-1:w1', 'read run-1:r1', 'send run-1:s1']);
    },
    TIMEOUT,
  );

  it(
    'killed after each journal write in turn: every resume gives a valid transcript and the same answer',
    async () => {
      // The whole run appends 9 times: run_start; model_end 1 with tool_start w1; tool_end w1; tool_start r1;
      // tool_end r1; model_end 2 with tool_start s1; tool_end s1; model_end 3 (the answer); run_end.
      for (let append = 1; append <= 9; append++) {
        const run = await runChild({ CHILD_HANG: `append:${append}` });
        expect(run.ended).toBe('SIGKILL');
        const before = await journal(run.dir);
        if (append === 9) {
          // The run had ended: resuming returns its result and writes nothing.
          expect(before.at(-1)?.type).toBe('run_end');
          const result = await resumeRun({
            model: durableModel(),
            tools: durableTools(path.join(run.dir, 'tools.log')),
            store: fileJournal(run.dir),
            runId: 'run-1',
          });
          expect(result).toMatchObject({ status: 'completed', steps: 3, toolCalls: 3 });
          assertTranscript(result.messages);
          expect(await journal(run.dir)).toEqual(before);
          continue;
        }
        await resumeAndCheck(run.dir);
      }
    },
    TIMEOUT * 6,
  );
});

describe('approval pause and resume across processes', () => {
  it(
    'without a store: the state written by one process resumes in another',
    async () => {
      const run = await runChild({ CHILD_MODE: 'pause-state' });
      expect(run.output).toContain('"status":"awaiting_approval"');
      const state = JSON.parse(fs.readFileSync(path.join(run.dir, 'state.json'), 'utf8')) as RunState;
      const result = await resumeRun({
        model: durableModel(),
        tools: durableTools(path.join(run.dir, 'tools.log'), undefined, true),
        state,
        approvals: { s1: true },
      });
      assertTranscript(result.messages);
      expect(result).toMatchObject({ status: 'completed', steps: 3, toolCalls: 3 });
      expect(toolLog(path.join(run.dir, 'tools.log'))).toEqual(['write run-1:w1', 'read run-1:r1', 'send run-1:s1']);
    },
    TIMEOUT,
  );

  it(
    'with a store: the paused run resumes by runId in another process',
    async () => {
      const run = await runChild({ CHILD_MODE: 'pause-store' });
      expect(run.output).toContain(
        '"pendingApprovals":[{"callId":"s1","name":"send","arguments":{"to":"ada"},"digest":"sha256:',
      );
      const store = fileJournal(run.dir);
      expect((await store.readRun('run-1'))?.status).toBe('awaiting_approval');
      const result = await resumeRun({
        model: durableModel(),
        tools: durableTools(path.join(run.dir, 'tools.log'), undefined, true),
        store,
        runId: 'run-1',
        approvals: { s1: { approved: false, reason: 'not to ada' } },
      });
      assertTranscript(result.messages);
      expect(result.status).toBe('completed');
      expect(result.messages[5]).toMatchObject({ name: 'send', content: 'Denied: not to ada', isError: true });
      expect(toolLog(path.join(run.dir, 'tools.log'))).toEqual(['write run-1:w1', 'read run-1:r1']);
      expect((await store.readRun('run-1'))?.status).toBe('completed');
    },
    TIMEOUT,
  );
});
