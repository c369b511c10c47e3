// `bridle resume` on a colour terminal (tmux) draws the run as `bridle run` does: the pending edit is asked with its
// diff, then the answer streams in place under an activity line, which is gone once Ctrl-C stops the run.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent } from '@bridle/core';
import { codingSkill, composeSkills } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer, scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skip = tmuxUnavailable() !== undefined;
const sqliteError = await sqliteProblem('resume live-output test');
beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
let screen: Screen | undefined;
afterEach(async () => {
  screen?.close();
  screen = undefined;
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const words = Array.from({ length: 60 }, (_, index) => `w${index + 1}`);
const activityLine = (text: string) => text.split('\n').find((line) => /· step \d+ ·/.test(line));

describe.skipIf(skip || sqliteError !== undefined)('bridle resume on a terminal (tmux)', { timeout: 120_000 }, () => {
  it('asks the pending edit with its diff, then streams the answer under an activity line', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 41\n');
    const workspace = realpathSync(join(cwd, 'project'));
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const { tools, system } = composeSkills([codingSkill({ workspace: await Workspace.open(workspace) })]);
    const journal = await openStore(store);
    const edit = { path: 'notes.txt', oldText: 'is 41', newText: 'is 42' };
    const paused = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [{ id: 'e1', name: 'edit_file', arguments: edit }], usage }], {
        id: 'openai:fake-model',
      }),
      tools,
      ...(system === undefined ? {} : { system }),
      prompt: 'Fix the answer',
      store: journal,
      approve: () => 'ask',
      manifest: { workspace },
    });
    await journal.close();
    expect(paused.status).toBe('awaiting_approval');

    server = await fakeOpenAIServer([
      { type: 'hang', response: { content: `Fixed. ${words.join(' ')}`, usage }, afterEvents: 30 },
    ]);
    const env = fakeOpenAIEnv(server);
    delete env.NO_COLOR;
    screen = startScreen([process.execPath, BIN, 'resume', paused.runId, '--store', store], { cwd, env });
    const asked = await screen.until((text) => text.includes('[e] show all:'), 'the question');
    const lines = asked.split('\n');
    const question = lines.findIndex((line) => line.startsWith('? edit_file'));
    expect(lines.slice(question + 1, question + 6)).toEqual([
      '--- notes.txt',
      '+++ notes.txt',
      '@@ -1,1 +1,1 @@',
      '-the answer is 41',
      '+the answer is 42',
    ]);
    screen.type('y', false);
    const streaming = await screen.until(
      (text) => /\bw10\b/.test(text) && activityLine(text) !== undefined,
      'the streamed words and an activity line',
    );
    expect(activityLine(streaming)).toMatch(/^\S writing · \d+s · step 2 · \d+ tokens$/);
    expect(streaming.split('\n').at(-1)).toBe(activityLine(streaming));
    expect(streaming).not.toContain('w60');
    screen.type('\u0003', false);
    const ended = await screen.until((text) => /✗ aborted/.test(text), 'the aborted outcome line');
    expect(activityLine(ended)).toBeUndefined();
  });
});
