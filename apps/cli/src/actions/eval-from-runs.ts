import { caseFromRun, type EvalCase } from '@bridle/evals';
import { ConfigError, type Store, type StoredRun } from '@bridle/protocol';

/** Most runs one filter may take (a store lists at most this many a page). */
const MAX_RUNS = 1000;

/** Runs of an eval itself (tagged `eval:` / ids `eval.`): `last:N` leaves them out, so a replay never replays a replay. */
const isEvalRun = (summary: { runId: string; sessionId?: string }) =>
  summary.runId.startsWith('eval.') || summary.sessionId?.startsWith('eval:') === true;

async function listIds(store: Store, filter: string): Promise<string[]> {
  const match = /^(last|session|run|eval):(.+)$/.exec(filter.trim());
  if (!match)
    throw new ConfigError(`--from-runs ${filter}: expected last:N, session:<id>, run:<id>[,<id>...] or eval:<evalId>.`);
  const [, kind, value] = match as unknown as [string, string, string];
  if (kind === 'run')
    return value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
  if (kind === 'last') {
    const count = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(count >= 1 && count <= MAX_RUNS))
      throw new ConfigError(`--from-runs last:${value}: N must be a whole number from 1 to ${MAX_RUNS}.`);
    const rows = await store.listRuns({ limit: MAX_RUNS });
    return rows
      .filter((row) => !isEvalRun(row) && row.status !== 'running')
      .slice(0, count)
      .map((row) => row.runId)
      .reverse();
  }
  const sessionId = kind === 'eval' ? `eval:${value}` : value;
  const rows = await store.listRuns({ sessionId, limit: MAX_RUNS });
  return rows.map((row) => row.runId).reverse();
}

/**
 * The recorded runs a `--from-runs` filter names, oldest first, and each as a case. A filter that finds no
 * run, a run id the store does not have, or a run that cannot be a case is a `ConfigError` naming it.
 */
export async function casesFromRuns(
  store: Store,
  filter: string,
  storeUrl: string,
): Promise<{ cases: EvalCase[]; runs: Map<string, StoredRun> }> {
  const ids = await listIds(store, filter);
  if (ids.length === 0)
    throw new ConfigError(
      `--from-runs ${filter}: no recorded run matches in ${storeUrl} (bridle runs lists them; --store chooses the store).`,
    );
  const runs = new Map<string, StoredRun>();
  const cases: EvalCase[] = [];
  for (const id of ids) {
    const run = await store.readRun(id);
    if (run === undefined)
      throw new ConfigError(`--from-runs ${filter}: no run ${id} in ${storeUrl} (bridle runs lists them).`);
    const testCase = caseFromRun(run);
    if (typeof testCase === 'string') throw new ConfigError(`--from-runs ${filter}: ${testCase}; leave it out.`);
    runs.set(id, run);
    cases.push(testCase);
  }
  return { cases, runs };
}
