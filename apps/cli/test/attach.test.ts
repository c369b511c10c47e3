// `bridle attach` on a real terminal (tmux renders what a person sees) against a real server process (`bridle serve`,
// its model a scripted OpenAI-compatible server): it streams the run live, answers its approval with the same
// single-key question and diff as `bridle run`, sends a typed line to the run, and Ctrl-C detaches while the run goes on.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type CliProcess, cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skip = tmuxUnavailable() !== undefined;
beforeAll(requireBuild);

let fake: FakeProviderServer | undefined;
let serve: CliProcess | undefined;
let screen: Screen | undefined;
afterEach(async () => {
  screen?.close();
  screen = undefined;
  serve?.child.kill('SIGKILL');
  await serve?.exited;
  serve = undefined;
  await fake?.close();
  fake = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const original = ['export function greet(name) {', "  return 'Hello ' + name;", '}', ''].join('\n');
const ALLOW = 'Allow? [y] yes  [n] no  [a] always for edit_file  [e] show all:';

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** A project folder with src/greet.js, and `bridle serve -w` over it; resolves with the folder and the server URL. */
async function startServer(script: Parameters<typeof fakeOpenAIServer>[0]) {
  fake = await fakeOpenAIServer(script);
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project', 'src'), { recursive: true });
  writeFileSync(join(cwd, 'project', 'src', 'greet.js'), original);
  serve = startCli(['serve', '--port', '0', '-w', 'project'], {
    cwd,
    env: fakeOpenAIEnv(fake, { LOG_LEVEL: 'silent' }),
  });
  await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 'stderr');
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.stderr())?.[1] as string;
  return { cwd, url };
}

/** Starts a run on the server (its request stays open while it runs) and resolves with its id once it is listed. */
async function startRun(url: string, prompt: string) {
  const answer = fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  }).then((response) => response.json() as Promise<{ status: string; runId: string }>);
  for (;;) {
    const { runs } = (await (await fetch(`${url}/api/runs`)).json()) as { runs: { runId: string }[] };
    if (runs[0]) return { runId: runs[0].runId, answer };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `bridle attach` on a terminal; the shell prints its exit code when it ends. */
function attach(cwd: string, args: string[]): Screen {
  const command = [process.execPath, BIN, 'attach', ...args].map((word) => `'${word}'`).join(' ');
  // The shell outlives a Ctrl-C (its trap runs once the CLI exited) to print the CLI's exit code.
  return startScreen(['sh', '-c', `trap true INT; ${command}; echo "[exit $?]"`], { cwd, env: cliEnv() });
}

const lines = (text: string) => text.split('\n');

describe('bridle attach without a terminal (real server)', { timeout: 120_000 }, () => {
  it('replays an ended run as bridle run prints it, with its exit code', async () => {
    const { cwd, url } = await startServer([{ content: 'All done.', usage }]);
    const { runId, answer } = await startRun(url, 'Say you are done');
    expect((await answer).status).toBe('completed');
    const attached = await runCli(['attach', runId, '--server', url], { cwd, env: cliEnv() });
    expect(attached.code).toBe(0);
    expect(attached.stdout).toBe('All done.\n');
    expect(attached.stderr).toBe('✓ completed · 1 step · 0 tool calls · 10 in / 5 out tokens\n');
  });

  it('a --server that is not a URL: exit 2 naming the flag', async () => {
    const attached = await runCli(['attach', 'some-run', '--server', 'localhost:3000'], { env: cliEnv() });
    expect(attached.code).toBe(2);
    expect(attached.stderr).toContain(
      'Invalid --server "localhost:3000": give the server\'s base URL, e.g. http://127.0.0.1:3000.',
    );
  });
});

describe.skipIf(skip)('bridle attach (tmux, real server)', { timeout: 120_000 }, () => {
  it('streams the run live, approves an edit shown as a diff with one key, sends a typed line, ends with the run', async () => {
    const firstCall = gate();
    const inputSent = gate();
    const { cwd, url } = await startServer([
      async () => {
        await firstCall.opened;
        return {
          content: 'I will make the greeting friendlier.',
          toolCalls: [
            {
              id: 'c1',
              name: 'edit_file',
              arguments: { path: 'src/greet.js', oldText: "'Hello ' + name", newText: "'Hello, ' + name + '!'" },
            },
          ],
          usage,
        };
      },
      async () => {
        await inputSent.opened;
        return {
          content: '',
          toolCalls: [{ id: 'c2', name: 'read_file', arguments: { path: 'src/greet.js' } }],
          usage,
        };
      },
      { content: 'Tabs it is.', usage },
    ]);
    const { runId, answer } = await startRun(url, 'Make the greeting friendlier');
    screen = attach(cwd, [runId, '--server', url, '-w', 'project']);
    await screen.until((text) => text.includes(`Following run ${runId}`), 'the attach banner');
    // The model answers only now: what follows on the screen came live, not from the journal.
    firstCall.open();
    const asked = await screen.until((text) => text.includes(ALLOW), 'the approval question');
    expect(asked).toContain('I will make the greeting friendlier.');
    const before = lines(asked);
    const question = before.findIndex((line) => line.startsWith('? edit_file'));
    expect(before.slice(question + 1, question + 8)).toEqual([
      '--- src/greet.js',
      '+++ src/greet.js',
      '@@ -1,3 +1,3 @@',
      ' export function greet(name) {',
      "-  return 'Hello ' + name;",
      "+  return 'Hello, ' + name + '!';",
      ' }',
    ]);
    screen.type('y', false);
    await screen.until((text) => /← edit_file/.test(text), 'the edit ran');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toContain("'Hello, ' + name + '!'");
    screen.type('use tabs');
    await screen.until(
      (text) => text.includes('Sent to the run: it joins at its next step boundary.'),
      'the input sent',
    );
    inputSent.open();
    const done = await screen.until((text) => text.includes('[exit 0]'), 'the end of the run');
    expect(lines(done)).toContain(`  ${ALLOW} y`);
    expect(lines(done)).toContain('» api: use tabs');
    expect(done).toContain('Tabs it is.');
    expect(done).toMatch(/✓ completed · 3 steps · 2 tool calls/);
    // The model got the typed line as a user message.
    expect(JSON.stringify(fake?.requests[2]?.body)).toContain('use tabs');
    // The request that started the run ended at its pause; the run went on from the decision sent here.
    expect((await answer).status).toBe('awaiting_approval');
    const run = (await (await fetch(`${url}/api/runs/${runId}`)).json()) as { status: string };
    expect(run.status).toBe('completed');
  });

  it('Ctrl-C detaches with exit 130; the run goes on and completes', async () => {
    const firstCall = gate();
    const { cwd, url } = await startServer([
      async () => {
        await firstCall.opened;
        return { content: 'Finished without you.', usage };
      },
    ]);
    const { runId, answer } = await startRun(url, 'Take your time');
    screen = attach(cwd, [runId, '--server', url]);
    await screen.until((text) => text.includes(`Following run ${runId}`), 'the attach banner');
    screen.type('\u0003', false);
    const detached = await screen.until((text) => text.includes('[exit 130]'), 'the detach');
    expect(detached).toContain(`Detached from run ${runId}: it goes on. bridle attach ${runId} follows it again.`);
    firstCall.open();
    expect(await answer).toMatchObject({ status: 'completed', runId });
  });

  it('after a decision sent from here, Ctrl-C detaches at once and the resumed part of the run goes on', async () => {
    const afterEdit = gate();
    const { cwd, url } = await startServer([
      {
        content: '',
        toolCalls: [{ id: 'c1', name: 'write_file', arguments: { path: 'notes.txt', content: 'hi\\n' } }],
        usage,
      },
      async () => {
        await afterEdit.opened;
        return { content: 'Written.', usage };
      },
    ]);
    const { runId, answer } = await startRun(url, 'Write notes');
    expect((await answer).status).toBe('awaiting_approval');
    screen = attach(cwd, [runId, '--server', url]);
    await screen.until((text) => text.includes('[a] always for write_file'), 'the approval question');
    screen.type('y', false);
    await screen.until((text) => /← write_file/.test(text), 'the write ran');
    screen.type('\u0003', false);
    const detached = await screen.until((text) => text.includes('[exit 130]'), 'the detach');
    expect(detached).toContain(`Detached from run ${runId}: it goes on. bridle attach ${runId} follows it again.`);
    expect(detached).not.toContain('Ctrl-C again');
    afterEdit.open();
    await expect
      .poll(async () => ((await (await fetch(`${url}/api/runs/${runId}`)).json()) as { status: string }).status, {
        timeout: 20_000,
      })
      .toBe('completed');
    expect(readFileSync(join(cwd, 'project', 'notes.txt'), 'utf8')).toBe('hi\\n');
  });

  it('a run the server does not know: exit 2 naming the run and the server', async () => {
    const { cwd, url } = await startServer([]);
    screen = attach(cwd, ['no-such-run', '--server', url]);
    const shown = await screen.until((text) => text.includes('[exit 2]'), 'the refusal');
    expect(shown).toContain(`bridle: Run no-such-run is not on ${url}`);
  });
});
