import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAIEnv, requireBuild, runCli, startCli, until } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const env = fakeOpenAIEnv;
const bodyOf = (fake: FakeProviderServer, index: number) => JSON.stringify(fake.requests[index]?.body);

describe('bridle chat', () => {
  it('keeps the conversation between turns, and /usage, /reset and /exit work', async () => {
    server = await fakeOpenAIServer([
      { content: 'Nice to meet you, Ada.', usage },
      { content: 'Your name is Ada.', usage },
      { content: 'I do not know your name.', usage },
    ]);
    const result = await runCli(['chat'], {
      env: env(server),
      input: 'My name is Ada.\nWhat is my name?\n/usage\n/reset\nWhat is my name?\n/exit\nnever sent\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Nice to meet you, Ada.\nYour name is Ada.\nI do not know your name.\n');
    expect(server.requests).toHaveLength(3);
    expect(bodyOf(server, 1)).toContain('My name is Ada.');
    expect(bodyOf(server, 1)).toContain('Nice to meet you, Ada.');
    expect(bodyOf(server, 2)).not.toContain('My name is Ada.');
    expect(result.stderr).toContain('2 runs · 20 in / 10 out tokens · 4 messages kept');
    expect(result.stderr).toContain('(conversation cleared)');
  });

  it('exits 0 at the end of input (Ctrl-D) and explains unknown commands', async () => {
    server = await fakeOpenAIServer([]);
    const result = await runCli(['chat'], { env: env(server), input: '/frobnicate\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Unknown command /frobnicate: /help lists the commands (Tab completes them).');
    expect(server.requests).toHaveLength(0);
  });

  it('cancels the answer in progress on Ctrl-C and keeps the session', async () => {
    server = await fakeOpenAIServer([
      { content: 'First answer.', usage },
      { type: 'hang' },
      { content: 'Still here.', usage },
    ]);
    const fake = server;
    const chat = startCli(['chat'], { env: env(fake) });
    chat.child.stdin?.write('Remember the word banana.\n');
    await chat.waitFor('First answer.');
    chat.child.stdin?.write('Tell me a very long story.\n');
    await until(() => fake.requests.length === 2);
    chat.child.kill('SIGINT');
    await chat.waitFor(/✗ aborted/, 'stderr');
    chat.child.stdin?.write('Are you there?\n');
    await chat.waitFor('Still here.');
    chat.child.stdin?.end();
    const result = await chat.exited;
    expect(result.code).toBe(0);
    // The session survived the cancel: the third call still carries the first turn.
    expect(bodyOf(fake, 2)).toContain('Remember the word banana.');
    expect(bodyOf(fake, 2)).toContain('First answer.');
    expect(bodyOf(fake, 2)).toContain('Are you there?');
  });

  it('leaves on a second Ctrl-C when no answer is in progress', async () => {
    server = await fakeOpenAIServer([]);
    const chat = startCli(['chat'], { env: env(server) });
    await chat.waitFor('/help for commands', 'stderr');
    chat.child.kill('SIGINT');
    await chat.waitFor('Ctrl-C again', 'stderr');
    chat.child.kill('SIGINT');
    expect((await chat.exited).code).toBe(0);
  });

  it('refuses --compact without a memory budget', async () => {
    server = await fakeOpenAIServer([]);
    const result = await runCli(['chat', '--compact'], { env: env(server) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--compact needs a budget');
  });

  it('keeps the conversation within --memory-chars', async () => {
    server = await fakeOpenAIServer([
      { content: `First ${'x'.repeat(400)}`, usage },
      { content: `Second ${'y'.repeat(400)}`, usage },
      { content: 'Third.', usage },
    ]);
    const result = await runCli(['chat', '--memory-chars', '800'], {
      env: env(server),
      input: 'turn one\nturn two\nturn three\n',
    });
    expect(result.code).toBe(0);
    const third = bodyOf(server, 2);
    expect(third).toContain('turn one');
    expect(third).not.toContain('First x');
    expect(third).toContain('Second y');
    expect(third).toContain('turn three');
  });
});
