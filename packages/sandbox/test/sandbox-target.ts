import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { type BubblewrapSandboxOptions, openBubblewrapSandbox } from '../src/index';

/** Why the bubblewrap tests cannot run here, or undefined when they can. */
export async function sandboxProblem(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `this is ${process.platform}, not Linux`;
  const folder = await mkdtemp(join(tmpdir(), 'bridle-sandbox-probe-'));
  try {
    await openBubblewrapSandbox({ root: folder });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const problem = await sandboxProblem();
if (problem !== undefined && process.env.CI !== 'true') {
  console.warn(`SKIPPED @bridle/sandbox bubblewrap tests: ${problem} (install bubblewrap: apt-get install bubblewrap)`);
}

/** A `describe` that runs when bubblewrap works here or under CI=true (where a missing bwrap fails), else skips. */
export function withBubblewrap(name: string, body: () => void): void {
  (problem === undefined || process.env.CI === 'true' ? describe : describe.skip)(name, body);
}

it.runIf(problem !== undefined && process.env.CI === 'true')('bubblewrap works (required when CI=true)', () => {
  throw new Error(`bubblewrap cannot run here: ${problem}; .ci/run installs it with apt-get install bubblewrap`);
});

/** A scratch layout: a workspace (a git repository with a `.env`), a home folder with keys, a folder beside both. */
export interface Scratch {
  base: string;
  workspace: string;
  home: string;
  outside: string;
  open(options?: Partial<BubblewrapSandboxOptions>): ReturnType<typeof openBubblewrapSandbox>;
}

export async function scratch(): Promise<Scratch> {
  const base = await mkdtemp(join(tmpdir(), 'bridle-sandbox-test-'));
  const workspace = join(base, 'workspace');
  const home = join(base, 'home');
  const outside = join(base, 'outside');
  await mkdir(join(workspace, '.git', 'hooks'), { recursive: true });
  await writeFile(join(workspace, '.git', 'config'), '[core]\n\tbare = false\n');
  await writeFile(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(workspace, '.env'), 'OPENAI_API_KEY=sk-workspace-secret\n');
  await writeFile(join(workspace, 'notes.txt'), 'hello\n');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  await mkdir(join(home, '.config', 'bridle'), { recursive: true });
  await writeFile(join(home, '.config', 'bridle', 'config.json'), '{"model":"openai:secret-model"}\n');
  await mkdir(outside);
  await writeFile(join(outside, 'target.txt'), 'untouched\n');
  return {
    base,
    workspace,
    home,
    outside,
    open: (options = {}) => openBubblewrapSandbox({ root: workspace, home, ...options }),
  };
}

/** Host processes whose command line contains `marker` (the sandbox's PID namespace is not the host's). */
export async function hostProcesses(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\u0000', ' ');
    if (commandLine.includes(marker) && Number(entry) !== process.pid) found.push(`${entry}: ${commandLine}`);
  }
  return found;
}

/** Runs a bash command line. */
export function bash(command: string) {
  return { argv: ['bash', '-c', command] };
}
