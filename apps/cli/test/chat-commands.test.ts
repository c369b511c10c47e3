// The commands of `bridle chat` on a real terminal (tmux renders what a person sees): Tab completes them, and
// /model, /compact, /cost, /clear, /resume, /runs and /help act on the conversation. Piped, they print plain text.
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { completeChatCommand } from '../src/chat-commands';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skip = tmuxUnavailable() !== undefined;
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
const bodyOf = (index: number) => server?.requests[index]?.body as { model?: string; messages?: unknown[] };

describe('completion', () => {
  it('completes a command name; several candidates are listed; other lines complete to nothing', () => {
    expect(completeChatCommand('/cl')).toEqual([['/clear '], '/cl']);
    expect(completeChatCommand('/co')).toEqual([['/compact', '/cost'], '/co']);
    expect(completeChatCommand('/r')).toEqual([['/resume', '/runs', '/reset'], '/r']);
    expect(completeChatCommand('/model gpt')).toEqual([[], '/model gpt']);
    expect(completeChatCommand('hello')).toEqual([[], 'hello']);
  });
});

describe.skipIf(skip)('chat commands on a terminal (tmux)', { timeout: 180_000 }, () => {
  it('Tab completes; /compact, /model, /cost, /runs, /clear and /resume act on the conversation', async () => {
    server = await fakeOpenAIServer([
      { content: 'First answer.', usage },
      { content: 'Second answer.', usage },
      { content: 'Third answer.', usage },
      { content: 'They talked about three things.', usage },
      { content: 'Switched answer.', usage },
    ]);
    screen = startScreen([process.execPath, BIN, 'chat'], { cwd: tempDir(), env: fakeOpenAIEnv(server) });
    const terminal = screen;
    await terminal.until((text) => text.includes('/help for commands'), 'the banner');
    for (const [question, answer] of [
      ['First question', 'First answer.'],
      ['Second question', 'Second answer.'],
      ['Third question', 'Third answer.'],
    ] as const) {
      terminal.type(question);
      await terminal.until((text) => text.includes(answer), answer);
    }

    // Two candidates: a second Tab lists them (as in a shell); one more letter and Tab completes.
    terminal.type('/co\t', false);
    await terminal.until((text) => text.split('\n').at(-1) === '› /co', 'the typed prefix');
    terminal.type('\t', false);
    await terminal.until((text) => /\/compact\s+\/cost/.test(text), 'the two candidates');
    terminal.type('m\t', false);
    await terminal.until((text) => text.split('\n').at(-1) === '› /compact', 'the completed command');
    terminal.type('');
    await terminal.until((text) => text.includes('(compacted: 3 messages replaced by a summary)'), 'the compaction');
    expect(JSON.stringify(bodyOf(3))).toContain('Second question');

    terminal.type('/model openai:other-model');
    await terminal.until((text) => text.includes('model: openai:other-model'), 'the model line');
    terminal.type('After the switch');
    await terminal.until((text) => text.includes('Switched answer.'), 'the answer of the new model');
    expect(bodyOf(4)?.model).toBe('other-model');
    const sent = JSON.stringify(bodyOf(4));
    expect(sent).toContain('[Summary of earlier conversation]\\nThey talked about three things.');
    expect(sent).not.toContain('Second question');
    expect(sent).toContain('Third answer.');

    terminal.type('/cost');
    await terminal.until((text) => text.includes('4 runs · 50 in / 25 out tokens'), 'the cost line');
    terminal.type('/runs');
    await terminal.until((text) => /completed {2}openai:[a-z-]+ {2}\S+ {2}After the switch/.test(text), 'the runs');
    terminal.type('/cl\t', false);
    await terminal.until((text) => text.split('\n').at(-1) === '› /clear', 'the completed /clear');
    terminal.type('');
    await terminal.until(
      (text) => /\(new session [0-9a-f-]{36}; \/resume lists the earlier ones\)/.test(text),
      'the new session',
    );
    terminal.type('/resume');
    const listed = await terminal.until(
      (text) => text.includes('/resume <n> or /resume <id> switches to one.'),
      'the list',
    );
    expect(listed).toMatch(/ 1\. First question {2}6 messages · /);
    terminal.type('/resume 1');
    await terminal.until((text) => /\(session [0-9a-f-]{36}: First question, 6 messages\)/.test(text), 'the switch');
    terminal.type('/help');
    await terminal.until((text) => text.includes('Tab completes a command.'), 'the help');
    terminal.type('/exit');
  });
});

describe('chat commands without a terminal', { timeout: 60_000 }, () => {
  it('print plain text: /help, /cost, /model, an unknown command', async () => {
    server = await fakeOpenAIServer([{ content: 'Hi.', usage }]);
    const result = await runCli(['chat'], {
      env: fakeOpenAIEnv(server),
      input: 'Hello\n/cost\n/model\n/model nope:x\n/help\n/frobnicate\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hi.\n');
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('1 run · 10 in / 5 out tokens · 2 messages kept\n');
    expect(result.stderr).toContain('model: openai:fake-model\n');
    expect(result.stderr).toContain('bridle: /model: ');
    expect(result.stderr).toContain('/compact        summarize the conversation except its first and newest turns\n');
    expect(result.stderr).toContain('Unknown command /frobnicate: /help lists the commands (Tab completes them).');
  });
});
