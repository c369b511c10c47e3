import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandTool, Workspace } from '@bridle/workspace-tools';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BubblewrapSandbox } from '../src/index';
import { type Scratch, scratch, withBubblewrap } from './sandbox-target';

// The workspace's test file is code the model can write: what `npm test` would run.
const TEST_FILE = `
const fs = require('node:fs');
const net = require('node:net');
try { fs.writeFileSync(process.argv[2], 'owned'); console.log('wrote outside'); } catch (e) { console.error(e.message); }
try { console.log(fs.readFileSync('.env', 'utf8')); } catch (e) { console.error(e.message); }
console.log('key:', process.env.BRIDLE_PRESET_TEST_KEY ?? 'none');
const socket = net.connect(6379, '127.0.0.1', () => { console.log('connected'); socket.end(); });
socket.on('error', (e) => console.error(e.message));
`;

withBubblewrap('presets with sandbox: true (bubblewrap)', () => {
  let at: Scratch;
  let sandbox: BubblewrapSandbox;
  beforeAll(async () => {
    process.env.BRIDLE_PRESET_TEST_KEY = 'sk-preset-secret';
    at = await scratch();
    await writeFile(join(at.workspace, 'test.js'), TEST_FILE);
    sandbox = await at.open();
  });
  afterAll(async () => {
    delete process.env.BRIDLE_PRESET_TEST_KEY;
    await rm(at.base, { recursive: true, force: true });
  });

  it('run workspace code without the network, writes outside the workspace or secrets, and say what was refused', async () => {
    const workspace = await Workspace.open(at.workspace);
    const outsideFile = join(at.outside, 'owned.txt');
    const tool = commandTool(
      workspace,
      { test: { executable: 'node', args: ['test.js', outsideFile], sandbox: true } },
      { sandbox },
    );
    expect(tool.description).toContain('in a sandbox: no network, writes only inside the workspace');
    const result = await tool.execute(
      { command: 'test' },
      { signal: new AbortController().signal, callId: 'c', runId: 'r', idempotencyKey: 'r:c' },
    );
    expect(existsSync(outsideFile)).toBe(false);
    expect(result.stdout).toBe('key: none\n');
    expect(result.stderr).toContain(`ENOENT: no such file or directory, open '${outsideFile}'`);
    expect(result.stderr).toContain("EACCES: permission denied, open '.env'");
    expect(result.stderr).toContain('connect ECONNREFUSED 127.0.0.1:6379');
    expect(result.refusals).toEqual([
      'Permission denied: the sandbox hides protected files (.env*, .bridle) and the home folder; do not try to read them.',
      'The sandbox has no network: connections (even to 127.0.0.1) and name lookups fail. Work offline; only the user can allow the network.',
    ]);
  });

  it('an executable found on PATH through a link under /tmp (not there inside) runs by its real path', async () => {
    const links = await mkdtemp(join(tmpdir(), 'bridle-preset-path-'));
    const onPath = process.env.PATH;
    try {
      await symlink(process.execPath, join(links, 'node'));
      process.env.PATH = `${links}:${onPath}`;
      const workspace = await Workspace.open(at.workspace);
      const tool = commandTool(
        workspace,
        { version: { executable: 'node', args: ['-p', '"node " + process.version'], sandbox: true } },
        { sandbox },
      );
      const result = await tool.execute(
        { command: 'version' },
        { signal: new AbortController().signal, callId: 'c', runId: 'r', idempotencyKey: 'r:c' },
      );
      expect(result.stdout).toBe(`node ${process.version}\n`);
    } finally {
      process.env.PATH = onPath;
      await rm(links, { recursive: true, force: true });
    }
  });

  it('a sandbox over another folder is refused at creation', async () => {
    const other = await Workspace.open(at.outside);
    expect(() => commandTool(other, { test: { executable: 'true', sandbox: true } }, { sandbox })).toThrow(
      `commandTool: the sandbox is over ${sandbox.root}, the workspace is ${other.root}; open the sandbox over the workspace's folder.`,
    );
  });
});
