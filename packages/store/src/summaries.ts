import type { RunSummary } from '@bridle/protocol';
import type { RunRow } from './plan-append';

/** A run's row as `listRuns` returns it. */
export function toRunSummary(row: RunRow): RunSummary {
  return {
    runId: row.runId,
    status: row.status,
    ...(row.model !== undefined && { model: row.model }),
    ...(row.sessionId !== undefined && { sessionId: row.sessionId }),
    ...(row.tenant !== undefined && { tenant: row.tenant }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.steps !== undefined && { steps: row.steps }),
    ...(row.toolCalls !== undefined && { toolCalls: row.toolCalls }),
    ...(row.usage !== undefined && { usage: { ...row.usage } }),
    ...(row.durationMs !== undefined && { durationMs: row.durationMs }),
    ...(row.title !== undefined && { title: row.title }),
    ...(row.owner !== undefined && { owner: row.owner }),
    ...(row.leaseUntil !== undefined && { leaseUntil: row.leaseUntil }),
  };
}
