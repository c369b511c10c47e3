// Runs fixtures/durable-child.ts in a real process and SIGKILLs it where it says it reached its point.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtureBundle } from '../../../vitest.fixtures';

const here = path.dirname(new URL(import.meta.url).pathname);
// fixtures/durable-child.ts, bundled once per test run by test/bundle-fixtures.ts (a start through tsx cost
// 1.3-1.7 s of CPU, 0.2 s bundled).
const child = fixtureBundle(path.join(here, '..'), 'test/fixtures/durable-child.ts');
const dirs: string[] = [];

/** Removes every folder {@link crashDir} made (call in `afterAll`). */
export function removeCrashDirs(): void {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A fresh folder for one child's journal and tool log. */
export function crashDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-crash-'));
  dirs.push(dir);
  return dir;
}

export interface ChildRun {
  dir: string;
  /** The child's stdout. */
  output: string;
  /** How it ended: 'SIGKILL' when killed at the point. */
  ended: string;
}

/** Runs the child (in `dir`, default a fresh one) until it prints "REACHED <hang>" (then SIGKILLs it) or exits. */
export function runChild(env: Record<string, string>, dir = crashDir()): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, [child], {
      cwd: here,
      env: { ...process.env, ...env, DIR: dir, RUN_ID: 'run-1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('REACHED ')) proc.kill('SIGKILL');
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`child exited ${code}: ${errors}`));
      else resolve({ dir, output, ended: signal ?? String(code) });
    });
  });
}
