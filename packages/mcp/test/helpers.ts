import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ToolContext } from '@bridle/protocol';

const require = createRequire(import.meta.url);

/** A test server script in test/servers. */
export function fixture(name: string): string {
  return path.join(import.meta.dirname, 'servers', name);
}

/** The entry script of an installed MCP server package (run with `process.execPath`). */
export function serverPackage(name: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), Object.values(bin)[0] as string);
}

let calls = 0;

/** A tool context for direct `execute` calls. */
export function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  calls++;
  return { signal, callId: `call_${calls}`, runId: 'run_test', idempotencyKey: `run_test:call_${calls}` };
}

/**
 * True while a process runs. A zombie (dead, not yet reaped: this machine's init reaps orphans late)
 * counts as dead.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `check` is true, polling; fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
