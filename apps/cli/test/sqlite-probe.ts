import { join } from 'node:path';
import { openStore } from '@bridle/store';
import { tempDir } from './cli-process';

/**
 * Why the SQLite store cannot run here, or undefined when it can; warns once, naming `what` is skipped.
 * better-sqlite3 is built for the Node that installed it, so on another Node (the Node 22/24 matrix runs
 * these tests against node_modules installed on Node 20) it is a skip even under CI; any other failure to
 * load it fails under `CI=true`, as a missing service does.
 */
export async function sqliteProblem(what: string): Promise<string | undefined> {
  const problem = await openStore(`sqlite:${join(tempDir(), 'probe.db')}`).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (error: Error) => error.message,
  );
  if (problem === undefined) return undefined;
  if (process.env.CI === 'true' && !problem.includes('NODE_MODULE_VERSION'))
    throw new Error(`better-sqlite3 does not load, so the ${what} cannot run: ${problem}`);
  console.warn(`!!! SKIPPED: ${what} (better-sqlite3 does not load on ${process.version})`);
  return problem;
}
