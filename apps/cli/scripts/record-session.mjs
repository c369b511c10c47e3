// Records the README's terminal session: `bridle run` on a real pseudo-terminal (tmux, 100 x 30) against a scripted
// OpenAI-compatible server, an edit asked with its diff and approved with `y`, the diff it made, the outcome line.
// The screen tmux shows (what a person sees, colours left out) replaces the text between the README's markers.
// Build first (pnpm --filter bridle... build), then: pnpm --filter bridle record-session [--check]
// --check only compares: exit 1 when the README's session differs from a fresh recording.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeOpenAIServer } from '@bridle/testing';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));
const START = '<!-- recorded-session:start (scripts/record-session.mjs writes this block) -->';
const END = '<!-- recorded-session:end -->';

const usage = { inputTokens: 812, outputTokens: 64 };
const fake = await fakeOpenAIServer([
  {
    content: 'The greeting lacks a comma and an exclamation mark; I will fix it.',
    toolCalls: [
      {
        id: 'call_1',
        name: 'edit_file',
        arguments: { path: 'src/greet.js', oldText: "'Hello ' + name", newText: "'Hello, ' + name + '!'" },
      },
    ],
    usage,
  },
  { content: 'Done: `greet("Ada")` now returns `Hello, Ada!`.', usage },
]);
const home = mkdtempSync(join(tmpdir(), 'bridle-session-'));
const socket = join(home, 'tmux.socket');
const tmux = (...args) => execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
try {
  mkdirSync(join(home, 'project', 'src'), { recursive: true });
  writeFileSync(
    join(home, 'project', 'src', 'greet.js'),
    ['export function greet(name) {', "  return 'Hello ' + name;", '}', ''].join('\n'),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    BRIDLE_STORE: 'memory:',
    NO_COLOR: '1',
    TERM: 'xterm-256color',
    OPENAI_API_KEY: 'sk-recording',
    OPENAI_BASE_URL: fake.baseURL,
    BRIDLE_MODEL: 'openai:gpt-4.1-mini',
  };
  // The prompt line is drawn by hand (no shell history, no user prompt); the command is the real one.
  const prompt = '$ bridle run "Make the greeting friendlier" -w project';
  const command = `cd '${home}' && printf '%s\\n' '${prompt}' && exec env -i ${Object.entries(env)
    .map(([key, value]) => `'${key}=${value}'`)
    .join(' ')} '${process.execPath}' '${BIN}' run 'Make the greeting friendlier' -w project`;
  tmux(
    'new-session',
    '-d',
    '-s',
    'rec',
    '-x',
    '100',
    '-y',
    '30',
    command,
    ';',
    'set-option',
    '-t',
    'rec',
    'remain-on-exit',
    'on',
  );
  const screen = () =>
    tmux('capture-pane', '-p', '-J', '-t', 'rec')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n*Pane is dead.*$/s, '')
      .trimEnd();
  const until = async (condition, what) => {
    const giveUp = Date.now() + 60_000;
    for (;;) {
      const text = screen();
      if (condition(text)) return text;
      if (Date.now() > giveUp) throw new Error(`The terminal never showed ${what}:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await until((text) => text.includes('[e] show all:'), 'the approval question');
  tmux('send-keys', '-t', 'rec', '-l', 'y');
  // Durations (`12ms`) differ from one recording to the next: shown as they were, minus the digits' noise.
  const session = (await until((text) => /✓ completed/.test(text), 'the outcome line')).replace(/ \d+ms /g, ' 9ms ');
  const block = `${START}\n\n\`\`\`console\n${session}\n\`\`\`\n\n${END}`;
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from === -1 || to === -1)
    throw new Error(`${README} has no ${START} ... ${END} markers: add them where the session goes.`);
  const updated = readme.slice(0, from) + block + readme.slice(to + END.length);
  if (process.argv.includes('--check')) {
    if (updated !== readme) {
      console.error('The README session differs from a fresh recording: run pnpm --filter bridle record-session.');
      process.exitCode = 1;
    } else console.log('The README session matches a fresh recording.');
  } else {
    writeFileSync(README, updated);
    console.log(`Recorded into ${README}:\n${session}`);
  }
} finally {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  await fake.close();
  rmSync(home, { recursive: true, force: true });
}
