import { lstat, mkdir, readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Workspace, WorkspaceError, workspaceTools } from '../src/index';
import { checkPath, type Jail, openDirectoryChain } from '../src/path-walk';
import { readEntry } from '../src/read-entry';
import { byName, context, refusal, snapshot, tempTree } from './helpers';

async function jailOf(root: string, viaDescriptor: boolean): Promise<Jail> {
  const real = await realpath(root);
  return { root: real, rootIdentity: await lstat(real, { bigint: true }), viaDescriptor };
}

/** root/d/f.txt inside; outside/f.txt holds the secret a followed symlink would reveal. */
async function raceTree() {
  const tree = await tempTree({ 'd/f.txt': 'INSIDE' });
  await writeFile(join(tree.outside, 'f.txt'), 'OUTSIDE SECRET');
  return tree;
}

/** Replaces root/d with a symlink to the outside directory (the real d is kept aside). */
async function swapParentForSymlink(root: string, outside: string): Promise<void> {
  await rename(join(root, 'd'), join(root, 'd.real'));
  await symlink(outside, join(root, 'd'));
}

describe.each([
  ['through /proc/self/fd', true],
  ['through absolute paths (fallback)', false],
])('check then use, %s', (_name, viaDescriptor) => {
  it('refuses when a checked parent directory is swapped for a symlink before it is opened', async () => {
    const { root, outside } = await raceTree();
    const jail = await jailOf(root, viaDescriptor);
    const checked = await checkPath(jail, ['d', 'f.txt']);
    await swapParentForSymlink(root, outside);
    const error = await refusal(openDirectoryChain(jail, checked, 1));
    expect(error).toMatchObject({ code: 'changed_during_operation' });
    expect(error.message).toMatch(/"d" is no longer the directory that was checked/);
  });

  it('refuses when a checked directory is replaced by another real directory', async () => {
    const { root } = await raceTree();
    const jail = await jailOf(root, viaDescriptor);
    const checked = await checkPath(jail, ['d', 'f.txt']);
    await rename(join(root, 'd'), join(root, 'd.old'));
    await mkdir(join(root, 'd'));
    expect(await refusal(openDirectoryChain(jail, checked, 1))).toMatchObject({ code: 'changed_during_operation' });
  });

  it('refuses when the checked file is replaced before it is opened', async () => {
    const { root } = await raceTree();
    const jail = await jailOf(root, viaDescriptor);
    const checked = await checkPath(jail, ['d', 'f.txt']);
    const directory = await openDirectoryChain(jail, checked, 1);
    try {
      await writeFile(join(root, 'd', 'other.txt'), 'OTHER');
      await rename(join(root, 'd', 'other.txt'), join(root, 'd', 'f.txt'));
      const error = await refusal(readEntry(directory, 'f.txt', 1000, checked.stats[1]));
      expect(error.message).toMatch(/"d\/f.txt" was replaced/);
    } finally {
      await directory.close();
    }
  });
});

it('an opened directory stays the checked one even if its path is swapped for a symlink afterwards', async () => {
  const { root, outside } = await raceTree();
  const jail = await jailOf(root, true);
  const checked = await checkPath(jail, ['d', 'f.txt']);
  const directory = await openDirectoryChain(jail, checked, 1);
  try {
    await swapParentForSymlink(root, outside);
    // The descriptor still names the real directory (now root/d.real): the outside file is unreachable.
    expect((await readEntry(directory, 'f.txt', 1000)).toString()).toBe('INSIDE');
  } finally {
    await directory.close();
  }
});

it('a final component swapped for a symlink is never followed (O_NOFOLLOW)', async () => {
  const { root, outside } = await raceTree();
  const jail = await jailOf(root, true);
  const checked = await checkPath(jail, ['d', 'f.txt']);
  const directory = await openDirectoryChain(jail, checked, 1);
  try {
    await rename(join(root, 'd', 'f.txt'), join(root, 'd', 'kept.txt'));
    await symlink(join(outside, 'f.txt'), join(root, 'd', 'f.txt'));
    expect((await refusal(readEntry(directory, 'f.txt', 1000, checked.stats[1]))).message).toMatch(
      /became a symbolic link/,
    );
  } finally {
    await directory.close();
  }
});

// A worker thread swaps root/d <-> a symlink to outside/ as fast as it can, truly in parallel.
const SWAPPER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { root, outside, flag } = workerData;
const stop = new Int32Array(flag);
const d = root + '/d', real = root + '/d.real';
let swaps = 0;
parentPort.postMessage('ready');
while (Atomics.load(stop, 0) === 0) {
  try { fs.renameSync(d, real); fs.symlinkSync(outside, d); swaps++; } catch {}
  Atomics.wait(stop, 0, 0, swaps % 3); // hold each state for 0-2 ms, so both states and the moments between are hit
  try { fs.unlinkSync(d); fs.renameSync(real, d); } catch {}
  Atomics.wait(stop, 0, 0, swaps % 2);
}
parentPort.postMessage(swaps);
try { fs.unlinkSync(d); } catch {}
try { fs.renameSync(real, d); } catch {}
`;

describe('racing a real symlink swapper', () => {
  it('never reads or writes outside the root', async () => {
    const { root, outside } = await raceTree();
    const outsideBefore = await snapshot(outside);
    const tools = byName(workspaceTools(await Workspace.open(root)));
    const flag = new SharedArrayBuffer(4);
    const worker = new Worker(SWAPPER, { eval: true, workerData: { root, outside, flag } });
    await new Promise((resolve) => worker.once('message', resolve));
    const seen = { ok: 0, refused: 0 };
    try {
      for (let index = 0; index < 60; index++) {
        const calls = [
          tools.read_file!.execute({ path: 'd/f.txt' }, context()),
          tools.write_file!.execute({ path: `d/w${index}.txt`, content: 'written' }, context()),
          tools.write_file!.execute({ path: 'd/f.txt', content: 'INSIDE' }, context()),
          tools.list_directory!.execute({ path: 'd' }, context()),
          tools.find_files!.execute({ pattern: '**/f.txt' }, context()),
        ];
        // search_text starts a worker thread per call: race it on every fifth round only.
        if (index % 5 === 0) calls.push(tools.search_text!.execute({ pattern: 'SECR' }, context()));
        for (const outcome of await Promise.allSettled(calls)) {
          if (outcome.status === 'fulfilled') {
            seen.ok++;
            expect(String(outcome.value)).not.toContain('OUTSIDE SECRET');
          } else {
            seen.refused++;
            // Every failure is a clear refusal, never a crash or a followed link.
            expect(WorkspaceError.isInstance(outcome.reason), String(outcome.reason)).toBe(true);
          }
        }
      }
    } finally {
      const stopFlag = new Int32Array(flag);
      Atomics.store(stopFlag, 0, 1);
      Atomics.notify(stopFlag, 0);
      await new Promise((resolve) => worker.once('exit', resolve));
    }
    expect(await snapshot(outside)).toEqual(outsideBefore);
    expect(await readFile(join(root, 'd', 'f.txt'), 'utf8')).toBe('INSIDE');
    expect(seen.ok + seen.refused).toBe(60 * 5 + 12);
  });
});
