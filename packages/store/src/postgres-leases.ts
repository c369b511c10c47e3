import type { AcquireLeaseOptions, AcquireLeaseResult, ClaimOrphansOptions, RunLease } from '@bridle/protocol';
import { checkAcquire, checkClaim, checkRenew, fencedError, leaseOf } from './lease-rules';
import type { RunRow } from './plan-append';
import type { PostgresQuery, PostgresStatements } from './postgres-sessions';
import { type RunRecord, toRunRow } from './run-record';

/**
 * Takes a run's lease in one statement (free, expired, or forced); `remember` keeps the run's row it returned.
 * When another owner holds it, says who and until when.
 */
export async function acquirePostgresLease(
  query: PostgresQuery,
  sql: PostgresStatements,
  runId: string,
  options: AcquireLeaseOptions,
  remember: (row: RunRow) => void,
): Promise<AcquireLeaseResult> {
  const { owner, leaseMs, force } = checkAcquire(runId, options);
  const taken = await query<RunRecord>(sql.acquireLease, [runId, new Date().toISOString(), owner, leaseMs, force]);
  const record = taken[0];
  if (record !== undefined) {
    remember(toRunRow(record));
    return { acquired: true, lease: leaseOf(runId, owner, record.fencing_token, Number(record.lease_until)) };
  }
  const held = await query<{ owner: string; lease_until: string }>(sql.leaseHolder, [runId]);
  const holder = held[0];
  if (holder === undefined) return acquirePostgresLease(query, sql, runId, options, remember);
  return { acquired: false, owner: holder.owner, leaseUntil: new Date(Number(holder.lease_until)).toISOString() };
}

/** Extends a lease this owner still holds; a lease taken over since is a fenced error. */
export async function renewPostgresLease(
  query: PostgresQuery,
  sql: PostgresStatements,
  lease: RunLease,
  leaseMs: number,
): Promise<RunLease> {
  const ms = checkRenew(lease, leaseMs);
  const rows = await query<{ owner: string; lease_until: string }>(sql.renewLease, [lease.runId, lease.token, ms]);
  const renewed = rows[0];
  if (renewed === undefined) {
    const latest = await query<{ fencing_token: number }>(sql.latestToken, [lease.runId]);
    throw fencedError(lease.runId, lease.token, latest[0]?.fencing_token ?? 0);
  }
  return leaseOf(lease.runId, renewed.owner, lease.token, Number(renewed.lease_until));
}

/** Takes the leases of running runs whose owners' leases expired (at most `limit`). */
export async function claimPostgresOrphans(
  query: PostgresQuery,
  sql: PostgresStatements,
  options: ClaimOrphansOptions,
): Promise<RunLease[]> {
  const { owner, leaseMs, limit } = checkClaim(options);
  const rows = await query<{ run_id: string; fencing_token: number; lease_until: string }>(sql.claimOrphans, [
    owner,
    leaseMs,
    limit,
  ]);
  return rows.map((row) => leaseOf(row.run_id, owner, row.fencing_token, Number(row.lease_until)));
}
