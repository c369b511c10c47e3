import { createHash } from 'node:crypto';
import type { Store, StoredRun } from '@bridle/protocol';

const SAFE = /^[A-Za-z0-9_-]{1,40}$/;
/** Statuses that mean a run did not finish: a resumed eval runs the case again under a new id. */
const UNFINISHED = new Set(['running', 'aborted']);
/** Tries of one case before the eval gives up finding a free run id. */
const MAX_TRIES = 50;
/** Rows of one `listRuns` page (the stores' largest). */
const PAGE = 1000;

/**
 * The statuses of the runs already tagged `tag`, by run id, when one page lists them all; undefined when there
 * are more (then each case asks the store itself). A new eval has none: its cases need no read at all.
 */
export async function taggedRuns(store: Store | undefined, tag: string): Promise<Map<string, string> | undefined> {
  if (store === undefined) return new Map();
  const rows = await store.listRuns({ sessionId: tag, limit: PAGE });
  return rows.length < PAGE ? new Map(rows.map((row) => [row.runId, row.status])) : undefined;
}

/** The run id of a case on a variant in an eval (`eval.<evalId>.<variant>.<case>`; unsafe case ids hashed). */
export function evalRunId(evalId: string, variantIndex: number, caseId: string): string {
  const key = SAFE.test(caseId) ? caseId : createHash('sha256').update(caseId).digest('hex').slice(0, 16);
  return `eval.${evalId}.${variantIndex + 1}.${key}`;
}

/**
 * Where a case stands in the store: a run that already ended (reuse it), or the id for a new run (the base
 * id, or `<base>.<n>` after runs that were interrupted). With `followRunning` (a variant whose runs run
 * elsewhere, such as on a queue's workers) a run still running keeps its id: the variant follows it.
 * `known` (from {@link taggedRuns}) spares a read for the runs that are not there.
 */
export async function findCaseRun(
  store: Store | undefined,
  baseId: string,
  followRunning = false,
  known?: ReadonlyMap<string, string>,
): Promise<{ runId: string; ended?: StoredRun }> {
  if (store === undefined) return { runId: baseId };
  for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
    const runId = attempt === 1 ? baseId : `${baseId}.${attempt}`;
    // A run the listing does not have is not there (runs of a variant with its own `run` are not tagged: ask).
    if (known !== undefined && !followRunning && !known.has(runId)) return { runId };
    const stored = await store.readRun(runId);
    if (stored === undefined || (followRunning && stored.status === 'running')) return { runId };
    if (!UNFINISHED.has(stored.status)) return { runId, ended: stored };
  }
  throw new Error(`run ${baseId} was interrupted ${MAX_TRIES} times: start a new eval (a new eval id)`);
}
