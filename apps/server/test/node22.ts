import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Node 22 for test clients whose packages need it (`ai` 7, `@ai-sdk/react` 4): `npx -y node@22` from the npm
 * registry. Undefined when it cannot be had here (then the caller skips loudly, and fails under CI=true).
 */
export async function findNode22(): Promise<string | undefined> {
  try {
    const { stdout } = await run('npx', ['-y', 'node@22', '-p', 'process.execPath'], { timeout: 120_000 });
    const path = stdout.trim();
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}

/** Runs `script` with Node 22 and `args`; resolves its standard output (rejects on a non-zero exit). */
export async function runNode22(node: string, script: string, args: string[]): Promise<string> {
  const { stdout } = await run(node, [script, ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}
