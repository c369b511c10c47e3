import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BubblewrapSandbox } from '../src/index';
import { bash, hostProcesses, type Scratch, scratch, withBubblewrap } from './sandbox-target';

withBubblewrap('bounds: processes, memory, output, file size, time (bubblewrap)', () => {
  let at: Scratch;
  let sandbox: BubblewrapSandbox;
  beforeAll(async () => {
    at = await scratch();
    sandbox = await at.open({
      maxProcesses: 64,
      maxMemoryBytes: 256 * 1024 ** 2,
      maxFileBytes: 1024 ** 2,
      timeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    await rm(at.base, { recursive: true, force: true });
  });

  it('a fork bomb stops at the process bound, and nothing of it is left', async () => {
    const result = await sandbox.run({
      ...bash('bomb() { bomb | bomb & }; bomb; sleep 2; echo survived'),
      timeoutMs: 8_000,
    });
    expect(result.refusals).toContain(
      "The sandbox's process bound (64 processes) was reached: starting a process failed.",
    );
    expect(await hostProcesses('bomb() {')).toEqual([]);
  });

  it('a process over the memory bound is refused or killed, and the result says so', async () => {
    const result = await sandbox.run(bash('node -e "const b = Buffer.alloc(600 * 2 ** 20, 1); console.log(b.length)"'));
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.refusals).toContain(
      "The sandbox's memory bound (256 MiB) was reached: a process was refused memory or killed.",
    );
  });

  // A gigabyte through a pipe takes seconds on a busy machine: a longer test timeout, never a timing assertion.
  it('a 1 GB output is cut at the output bound', { timeout: 120_000 }, async () => {
    const result = await sandbox.run({
      ...bash('head -c 1000000000 /dev/zero'),
      maxOutputBytes: 1_000,
      timeoutMs: 110_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      `${'\0'.repeat(1_000)}\n[output truncated: ${1_000_000_000 - 1_000} more bytes not shown]`,
    );
  });

  it('a file over the file size bound is cut, and the result says so', async () => {
    const result = await sandbox.run(bash('head -c 5000000 /dev/zero > big.bin'));
    expect((await stat(join(at.workspace, 'big.bin'))).size).toBe(1024 ** 2);
    expect(result.refusals).toContain("The sandbox's file size bound (1 MiB) was reached: a write was refused.");
  });

  it('the time limit kills the whole command: a process ignoring SIGTERM, a new session, a child of a child', async () => {
    const result = await sandbox.run({
      ...bash(
        "trap '' TERM; (trap '' TERM; setsid sleep 1000.71 & sleep 1000.72 &); nohup sleep 1000.73 & sleep 1000.74",
      ),
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ timedOut: true, aborted: false });
    expect(result.refusals).toContain(
      "The sandbox's time limit (1000 ms) was reached: every process of the command was killed. Run something shorter or a part of it.",
    );
    expect(await hostProcesses('sleep 1000.7')).toEqual([]);
  });

  it('a background process left behind ends with the command', async () => {
    const result = await sandbox.run(bash('nohup sleep 1000.81 > /dev/null 2>&1 & disown; echo started'));
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    expect(await hostProcesses('sleep 1000.81')).toEqual([]);
  });

  it('aborting kills every process of the command', async () => {
    const controller = new AbortController();
    const running = sandbox.run({ ...bash('sleep 1000.91 & sleep 1000.92'), signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false });
    expect(await hostProcesses('sleep 1000.9')).toEqual([]);
    const already = await sandbox.run({ ...bash('echo never'), signal: AbortSignal.abort() });
    expect(already).toMatchObject({ aborted: true, stdout: '' });
  });

  it('leaves no control group behind', async () => {
    const parents = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified'].filter((path) => existsSync(path));
    for (const parent of parents) {
      const names = await readdir(parent).catch(() => [] as string[]);
      expect(names.filter((name) => name.startsWith(`bridle-sandbox-${process.pid}-`))).toEqual([]);
    }
  });
});
