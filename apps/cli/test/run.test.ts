import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '@bridle/protocol';
import { type FakeProviderServer, fakeAnthropicServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild, runCli, startCli, tempDir, until } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function openaiEnv(fake: FakeProviderServer, extra: Record<string, string> = {}) {
  return cliEnv({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    BRIDLE_MODEL: 'openai:fake-model',
    ...extra,
  });
}

const usage = { inputTokens: 10, outputTokens: 5 };
const calculatorCall = {
  content: 'Computing.',
  toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '6 * 7' } }],
  usage,
};

describe('bridle run', () => {
  it('streams the answer to stdout and exits 0 when the run completes', async () => {
    server = await fakeOpenAIServer([{ content: 'Hello from the fake model.', usage }]);
    const result = await runCli(['run', 'Say hello'], { env: openaiEnv(server) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from the fake model.\n');
    expect(result.stderr).toBe('✓ completed · 1 step · 0 tool calls · 10 in / 5 out tokens\n');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Say hello');
    expect((server.requests[0]?.body as { stream?: boolean } | undefined)?.stream).toBe(true);
  });

  it('--max-cost stops the run before a model call once its cost reached the budget; the line shows the cost', async () => {
    const million = { inputTokens: 1_000_000, outputTokens: 0 };
    server = await fakeOpenAIServer([
      { ...calculatorCall, usage: million },
      { content: 'It is 42.', usage: million },
    ]);
    const env = openaiEnv(server, { BRIDLE_MODEL: 'openai:gpt-4o-mini' });
    const result = await runCli(['run', 'What is 6 * 7?', '--max-cost', '0.10'], { env });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    const last = result.stderr.trim().split('\n').at(-1) as string;
    expect(last).toMatch(
      /^✗ budget_limit: .*maxCostUsd.* · 1 step · 1 tool call · 1000000 in \/ 0 out tokens · \$0\.15$/,
    );
    const bad = await runCli(['run', 'x', '--max-cost', 'ten'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a positive amount of US dollars such as 0.50, got "ten"');
  });

  it('runs tools, shows the call and result compactly, and sends the result back to the model', async () => {
    server = await fakeOpenAIServer([calculatorCall, { content: 'It is 42.', usage }]);
    const result = await runCli(['run', 'What is 6 * 7?'], { env: openaiEnv(server) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Computing.\nIt is 42.\n');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('→ calculator {"expression":"6 * 7"}');
    expect(lines[1]).toMatch(/^← calculator \d+ms .*42/);
    expect(lines[2]).toBe('✓ completed · 2 steps · 1 tool call · 20 in / 10 out tokens');
    expect(JSON.stringify(server.requests[1]?.body)).toContain('42');
  });

  it('keeps text and tool lines in order when both streams go to one terminal', async () => {
    server = await fakeOpenAIServer([calculatorCall, { content: 'It is 42.', usage }]);
    const dir = tempDir();
    const file = join(dir, 'output.txt');
    const fd = openSync(file, 'w');
    const child = spawn(process.execPath, [BIN, 'run', 'What is 6 * 7?'], {
      cwd: dir,
      env: openaiEnv(server),
      stdio: ['ignore', fd, fd],
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    closeSync(fd);
    expect(code).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toBe('Computing.');
    expect(lines[1]).toBe('→ calculator {"expression":"6 * 7"}');
    expect(lines[2]).toMatch(/^← calculator/);
    expect(lines[3]).toBe('It is 42.');
    expect(lines[4]).toMatch(/^✓ completed/);
  });

  it('prints the result as one JSON object with --json', async () => {
    server = await fakeOpenAIServer([calculatorCall, { content: 'It is 42.', usage }]);
    const result = await runCli(['run', 'What is 6 * 7?', '--json'], { env: openaiEnv(server) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const json = JSON.parse(lines[0] as string);
    expect(json).toMatchObject({
      model: 'openai:fake-model',
      status: 'completed',
      answer: 'It is 42.',
      steps: 2,
      toolCalls: 1,
      usage: { inputTokens: 20, outputTokens: 10 },
    });
    expect(typeof json.runId).toBe('string');
    expect(json.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect((server.requests[0]?.body as { stream?: boolean } | undefined)?.stream).toBeFalsy();
  });

  it('exits 1 when the step limit ends the run', async () => {
    server = await fakeOpenAIServer([calculatorCall]);
    const result = await runCli(['run', 'Compute', '--max-steps', '1', '--json'], { env: openaiEnv(server) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'step_limit', steps: 1, toolCalls: 1 });
  });

  it('exits 1 when a batch goes over --max-tool-calls, and nothing runs', async () => {
    server = await fakeOpenAIServer([calculatorCall]);
    const result = await runCli(['run', 'Compute', '--max-tool-calls', '0'], { env: openaiEnv(server) });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('→ calculator');
    expect(result.stderr).toMatch(/✗ tool_limit/);
  });

  it('exits 1 on a model error that is not retried', async () => {
    server = await fakeOpenAIServer([{ type: 'http_error', status: 401, message: 'Incorrect API key provided' }]);
    const result = await runCli(['run', 'hi'], { env: openaiEnv(server) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/✗ model_error: .*Incorrect API key/);
    // Printed once (the outcome line), not also as a model_error line before it.
    expect(result.stderr.split('Incorrect API key')).toHaveLength(2);
  });

  it('retries a rate limit and shows it', async () => {
    server = await fakeOpenAIServer([
      new ProviderError({ code: 'rate_limited', message: 'slow down', provider: 'openai' }),
      { content: 'ok', usage },
    ]);
    const result = await runCli(['run', 'hi'], { env: openaiEnv(server) });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^! .*\(attempt 1, retrying\)$/m);
    expect(result.stdout).toBe('ok\n');
  });

  it('exits 1 on --timeout', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    const result = await runCli(['run', 'hi', '--timeout', '300ms', '--json'], { env: openaiEnv(server) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).status).toBe('timeout');
  });

  it('writes every event to --trace as JSON lines', async () => {
    server = await fakeOpenAIServer([calculatorCall, { content: 'It is 42.', usage }]);
    const cwd = tempDir();
    const result = await runCli(['run', 'Compute', '--trace', 'trace.jsonl'], { env: openaiEnv(server), cwd });
    expect(result.code).toBe(0);
    const events = readFileSync(join(cwd, 'trace.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', steps: 2, toolCalls: 1 });
    expect(events.map((event: { sequence: number }) => event.sequence)).toEqual(
      events.map((_: unknown, index: number) => index),
    );
    expect(events.filter((event: { type: string }) => event.type === 'tool_end')).toHaveLength(1);
  });

  it('reads the prompt from stdin', async () => {
    server = await fakeOpenAIServer([{ content: 'Got it.', usage }]);
    const result = await runCli(['run', '-'], { env: openaiEnv(server), input: 'Prompt from a pipe\n' });
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Prompt from a pipe');
  });

  it('uses the Anthropic adapter for anthropic: ids', async () => {
    server = await fakeAnthropicServer([{ content: 'Hi from Claude.', usage }]);
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url });
    const result = await runCli(['run', 'hi', '--model', 'anthropic:claude-sonnet-4-6', '--system', 'Be brief.'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hi from Claude.\n');
    const body = server.requests[0]?.body as { model: string; system?: unknown } | undefined;
    expect(body?.model).toBe('claude-sonnet-4-6');
    expect(JSON.stringify(body?.system)).toContain('Be brief.');
    expect(JSON.stringify(body?.system)).toContain('<skill name=\\"assistant\\">');
  });

  it('takes keys from .env in the working directory', async () => {
    server = await fakeOpenAIServer([{ content: 'From dotenv.', usage }]);
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'OPENAI_API_KEY=sk-dotenv\n');
    const result = await runCli(['run', 'hi'], {
      cwd,
      env: cliEnv({ OPENAI_BASE_URL: server.baseURL, BRIDLE_MODEL: 'openai:fake-model' }),
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-dotenv');
    expect(result.stderr).not.toContain('ignored');
  });

  it('exits 130 on Ctrl-C, after cancelling the model call', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    const fake = server;
    const cli = startCli(['run', 'hi'], { env: openaiEnv(fake) });
    await until(() => fake.requests.length === 1);
    cli.child.kill('SIGINT');
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/✗ aborted/);
  });

  it('exits 143 on SIGTERM after cancelling the model call, with the trace file complete', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    const fake = server;
    const cwd = tempDir();
    const cli = startCli(['run', 'hi', '--trace', 'trace.jsonl'], { cwd, env: openaiEnv(fake) });
    await until(() => fake.requests.length === 1);
    cli.child.kill('SIGTERM');
    const result = await cli.exited;
    expect(result.signal).toBeNull();
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(/✗ aborted/);
    const events = readFileSync(join(cwd, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'aborted' });
  });

  it('works in --workspace with --allow-command presets: file tools and a parameterised command, no shell', async () => {
    server = await fakeOpenAIServer([
      {
        content: '',
        toolCalls: [
          {
            id: 'c1',
            name: 'write_file',
            arguments: { path: 'hello.js', content: 'console.log("hi " + process.argv[2])' },
          },
        ],
        usage,
      },
      {
        content: '',
        toolCalls: [
          {
            id: 'c2',
            name: 'run_command',
            arguments: { command: 'node', params: { script: 'hello.js', arg: 'there; rm -rf x' } },
          },
        ],
        usage,
      },
      { content: 'It printed the greeting.', usage },
    ]);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const result = await runCli(
      [
        'run',
        'Write and run hello.js',
        '--workspace',
        'project',
        '--allow-command',
        `node=${process.execPath} {script} {arg}`,
        '--yes',
      ],
      {
        env: openaiEnv(server),
        cwd,
      },
    );
    expect(result.code).toBe(0);
    expect(readFileSync(join(cwd, 'project', 'hello.js'), 'utf8')).toContain('console.log');
    expect(result.stderr).toMatch(/^← run_command \d+ms exit 0 · hi there; rm -rf x$/m);
    const tools = JSON.stringify((server.requests[0]?.body as { tools?: unknown } | undefined)?.tools);
    expect(tools).toContain('read_file');
    expect(tools).toContain('run_command');
  });

  it('refuses a {placeholder} value outside the workspace: absolute, .., a symlink out', async () => {
    const call = (id: string, file: string) => ({
      content: '',
      toolCalls: [{ id, name: 'run_command', arguments: { command: 'show', params: { file } } }],
      usage,
    });
    server = await fakeOpenAIServer([
      call('c1', '/etc/hostname'),
      call('c2', '../secret.txt'),
      call('c3', 'out/secret.txt'),
      call('c4', 'inside.txt'),
      { content: 'Done.', usage },
    ]);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    writeFileSync(join(cwd, 'secret.txt'), 'top secret');
    writeFileSync(join(cwd, 'project', 'inside.txt'), 'inside text');
    symlinkSync(cwd, join(cwd, 'project', 'out'));
    const result = await runCli(
      ['run', 'Show files', '--workspace', 'project', '--allow-command', 'show=cat {file}', '--yes'],
      {
        env: openaiEnv(server),
        cwd,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr.match(/^✗ run_command/gm)).toHaveLength(3);
    expect(result.stderr).toMatch(/^← run_command \d+ms exit 0 · inside text$/m);
    expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain('top secret');
  });

  it('keeps file tools inside the workspace', async () => {
    server = await fakeOpenAIServer([
      { content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: '../secret.txt' } }], usage },
      { content: 'I cannot read that.', usage },
    ]);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    writeFileSync(join(cwd, 'secret.txt'), 'top secret');
    const result = await runCli(['run', 'Read ../secret.txt', '--workspace', 'project'], {
      env: openaiEnv(server),
      cwd,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^✗ read_file/m);
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain('top secret');
  });

  it('loads a SKILL.md folder with --skill, tools from the built-in catalogue', async () => {
    server = await fakeOpenAIServer([{ content: 'Arr.', usage }]);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'pirate'));
    writeFileSync(
      join(cwd, 'pirate', 'SKILL.md'),
      '---\nname: pirate\ndescription: Talks like a pirate.\ntools: [calculator]\n---\nAnswer like a pirate.\n',
    );
    const result = await runCli(['run', 'hi', '--skill', './pirate'], { env: openaiEnv(server), cwd });
    expect(result.code).toBe(0);
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain('<skill name=\\"pirate\\">\\nAnswer like a pirate.\\n</skill>');
    expect(body).toContain('calculator');
    expect(body).not.toContain('http_fetch');
    const bad = await runCli(['run', 'hi', '--skill', './nowhere'], { env: openaiEnv(server), cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('No skill at');
  });
});
