import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BubblewrapSandbox, shellTool } from '../src/index';
import { type Scratch, scratch, withBubblewrap } from './sandbox-target';

it('refuses to exist without a sandbox: a shell never runs unsandboxed', () => {
  expect(() => shellTool(undefined as never)).toThrow(ConfigError);
  expect(() => shellTool({} as never)).toThrow(
    'shellTool needs a Sandbox (from openBubblewrapSandbox in @bridle/sandbox), got an object; a shell never runs unsandboxed.',
  );
});

withBubblewrap('the shell tool in an agent run (bubblewrap)', () => {
  let at: Scratch;
  let sandbox: BubblewrapSandbox;
  beforeAll(async () => {
    at = await scratch();
    sandbox = await at.open();
  });
  afterAll(async () => {
    await rm(at.base, { recursive: true, force: true });
  });

  it('runs the command after approval; the model reads what the sandbox refused', async () => {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          { id: 'c1', name: 'shell', arguments: { command: 'echo done > out.txt && echo x > /etc/owned; echo $?' } },
        ],
      },
      { content: 'Finished.' },
    ]);
    const asked: unknown[] = [];
    const result = await runAgent({
      model,
      tools: [shellTool(sandbox)],
      prompt: 'Write out.txt.',
      approve: (call) => {
        asked.push(call.arguments);
        return true;
      },
    });
    expect(result.status).toBe('completed');
    expect(asked).toEqual([{ command: 'echo done > out.txt && echo x > /etc/owned; echo $?' }]);
    expect(await readFile(join(at.workspace, 'out.txt'), 'utf8')).toBe('done\n');
    const message = result.messages[2] as { role: string; content: string; isError: boolean };
    expect(message.isError).toBe(false);
    const output = JSON.parse(message.content) as { exitCode: number; stdout: string; refusals: string[] };
    expect(output).toMatchObject({ exitCode: 0, stdout: '1\n' });
    expect(output.refusals[0]).toMatch(/^The sandbox refused a write/);
  });

  it('requires approval by default: without an approve hook nothing runs', async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: { command: 'echo ran > ran.txt' } }] },
      { content: 'Could not.' },
    ]);
    const result = await runAgent({ model, tools: [shellTool(sandbox)], prompt: 'Run it.' });
    expect((result.messages[2] as { content: string }).content).toMatch(/^Denied: shell requires approval/);
    await expect(readFile(join(at.workspace, 'ran.txt'), 'utf8')).rejects.toThrow('ENOENT');
  });

  it('an empty or oversized command is an error result naming the fix', async () => {
    const tool = shellTool(sandbox, { maxCommandChars: 10, requiresApproval: false });
    await expect(tool.execute({ command: '  ' }, undefined as never)).rejects.toThrow(
      'shell: "command" must be a non-empty string of bash, e.g. {"command": "ls -la"}.',
    );
    await expect(tool.execute({ command: 'echo 12345678' }, undefined as never)).rejects.toThrow(
      'shell: "command" must be at most 10 characters without NUL bytes; write a script file in the workspace and run it instead.',
    );
  });

  it('an aborted command throws, and its processes are gone', async () => {
    const tool = shellTool(sandbox, { requiresApproval: false });
    const controller = new AbortController();
    const running = tool.execute(
      { command: 'sleep 30' },
      { signal: controller.signal, callId: 'c', runId: 'r', idempotencyKey: 'r:c' },
    );
    setTimeout(() => controller.abort(), 200);
    await expect(running).rejects.toThrow('shell: the command was aborted; every process it started was stopped.');
  });
});
