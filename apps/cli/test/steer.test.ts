// `bridle steer` and `bridle cancel` act, from their own process, on a run that runs in this one: the
// SQLite store carries the signal across (its signals table), and the journal records who acted.
import { join } from 'node:path';
import { runAgent } from '@bridle/core';
import { openStore } from '@bridle/store';
import { fakeOpenAIServer, gatedTool, scriptedModel } from '@bridle/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';

beforeAll(requireBuild);

const sqliteError = await sqliteProblem('steer and cancel tests');

describe.skipIf(sqliteError !== undefined)('bridle steer / bridle cancel', () => {
  it('steer: the running run gets the message at its next step boundary, recorded as from cli:<user>', async () => {
    const cwd = tempDir();
    const url = `sqlite:${join(cwd, 'runs.db')}`;
    const store = await openStore(url);
    const gate = gatedTool();
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] },
      { content: 'ok' },
    ]);
    const running = runAgent({ model, tools: [gate.tool], prompt: 'go', store, runId: 'cli-steer-1' });
    await gate.running;
    const steered = await runCli(['steer', 'cli-steer-1', 'use tabs', '--store', url], { cwd, env: cliEnv() });
    expect(steered.code).toBe(0);
    expect(steered.stdout).toContain('Input sent to run cli-steer-1');
    // The signal is in the file; the run's process reads it within its poll interval, before the batch ends.
    await new Promise((resolve) => setTimeout(resolve, 600));
    gate.release();
    const result = await running;
    expect(result.status).toBe('completed');
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'use tabs' });
    const input = (await store.readRun('cli-steer-1'))?.events.find((event) => event.type === 'input');
    expect(input).toMatchObject({ content: 'use tabs', by: expect.stringMatching(/^cli/) });
    // The run ended: steering it again is refused with exit 1.
    const late = await runCli(['steer', 'cli-steer-1', 'more', '--store', url], { cwd, env: cliEnv() });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('already ended (status completed)');
    await store.close();
  });

  it('cancel: the running run stops, aborted, and its run_end names who cancelled', async () => {
    const cwd = tempDir();
    const url = `sqlite:${join(cwd, 'runs.db')}`;
    const store = await openStore(url);
    const gate = gatedTool();
    const running = runAgent({
      model: scriptedModel([{ content: '', toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] }]),
      tools: [gate.tool],
      prompt: 'go',
      store,
      runId: 'cli-cancel-1',
    });
    await gate.running;
    const cancelled = await runCli(['cancel', 'cli-cancel-1', '--store', url], { cwd, env: cliEnv() });
    expect(cancelled.code).toBe(0);
    const result = await running;
    expect(result).toMatchObject({ status: 'aborted', cancelledBy: expect.stringMatching(/^cli/) });
    const unknown = await runCli(['cancel', 'no-such-run', '--store', url], { cwd, env: cliEnv() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown run');
    await store.close();
  });

  it('steer a run whose process died: the message waits in its journal, and bridle resume delivers it', async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const server = await fakeOpenAIServer([{ type: 'hang' }, { content: 'Le rapport.', usage }]);
    try {
      const cwd = tempDir();
      const url = `sqlite:${join(cwd, 'runs.db')}`;
      const env = fakeOpenAIEnv(server);
      const child = startCli(['run', 'Write the report', '--store', url], { cwd, env });
      while (server.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      child.child.kill('SIGKILL');
      await child.exited;
      const listed = await runCli(['runs', '--json', '--store', url, '--status', 'running'], { cwd, env });
      const { runId } = JSON.parse(listed.stdout) as { runId: string };

      // Its lease has not expired yet, but its process is gone: nobody would hear a signal.
      const steered = await runCli(['steer', runId, 'in French, please', '--store', url], { cwd, env });
      expect(steered.code).toBe(0);
      expect(steered.stdout).toBe(
        `Run ${runId} is not running anywhere (it waits for approval, or its process died): the input is kept in its journal for its resume (bridle resume ${runId}).\n`,
      );
      const resumed = await runCli(['resume', runId, '--store', url], { cwd, env });
      expect(resumed.stdout).toBe('Le rapport.\n');
      // The resumed model call is told the prompt, then the input.
      const sent = JSON.stringify(server.requests[1]?.body);
      expect(sent).toContain('in French, please');
      expect(sent.indexOf('in French, please')).toBeGreaterThan(sent.indexOf('Write the report'));
    } finally {
      await server.close();
    }
  }, 60_000);
});
