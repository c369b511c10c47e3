import type { AcquireLeaseOptions, ClaimOrphansOptions, RunLease } from '@bridle/protocol';
import { checkId } from './check-id';
import { StoreError } from './store-error';

/** Longest lease a store grants, in ms (a day): a longer one would leave a dead owner's run stuck for long. */
export const MAX_LEASE_MS = 86_400_000;

/** The refusal of an append or renewal whose fencing token is older than the run's latest lease. */
export function fencedError(runId: string, token: number, latest: number): StoreError {
  return new StoreError(
    'fenced',
    `run ${JSON.stringify(runId)}: fencing token ${token} is stale (the run's lease was taken since, token ${latest}); ` +
      'another process owns the run now, so this one must stop writing to it. Nothing was written',
  );
}

function checkLeaseMs(method: string, leaseMs: unknown): number {
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new StoreError(
      'invalid_input',
      `${method}: leaseMs must be an integer from 1 to ${MAX_LEASE_MS} (ms), got ${String(leaseMs)}`,
    );
  }
  return leaseMs;
}

function checkOwner(method: string, owner: unknown): string {
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > 256) {
    throw new StoreError('invalid_input', `${method}: owner must be a string of 1 to 256 characters`);
  }
  return owner;
}

/** `acquireLease`'s arguments, checked. */
export function checkAcquire(runId: string, options: AcquireLeaseOptions): Required<AcquireLeaseOptions> {
  checkId(runId, 'acquireLease: runId');
  return {
    owner: checkOwner('acquireLease', options?.owner),
    leaseMs: checkLeaseMs('acquireLease', options?.leaseMs),
    force: options.force === true,
  };
}

/** `renewLease`'s arguments, checked. */
export function checkRenew(lease: RunLease, leaseMs: number): number {
  checkId(lease?.runId, 'renewLease: lease.runId');
  checkToken('renewLease', lease.token);
  return checkLeaseMs('renewLease', leaseMs);
}

/** `claimOrphans`'s arguments, checked (limit default 10, at most 1000). */
export function checkClaim(options: ClaimOrphansOptions): Required<ClaimOrphansOptions> {
  const limit = options?.limit ?? 10;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new StoreError(
      'invalid_input',
      `claimOrphans: limit must be an integer from 1 to 1000, got ${String(limit)}`,
    );
  }
  return {
    owner: checkOwner('claimOrphans', options?.owner),
    leaseMs: checkLeaseMs('claimOrphans', options?.leaseMs),
    limit,
  };
}

/** A fencing token, checked: a positive safe integer. */
export function checkToken(method: string, token: unknown): number {
  if (typeof token !== 'number' || !Number.isSafeInteger(token) || token < 1) {
    throw new StoreError('invalid_input', `${method}: fencing token must be a positive integer, got ${String(token)}`);
  }
  return token;
}

/** A lease as the stores return it. */
export function leaseOf(runId: string, owner: string, token: number, leaseUntilMs: number): RunLease {
  // Leases taken in one millisecond end in the same one: its text is formatted once.
  if (leaseUntilMs !== lastUntilMs) {
    lastUntilMs = leaseUntilMs;
    lastUntil = new Date(leaseUntilMs).toISOString();
  }
  return { runId, owner, token, leaseUntil: lastUntil };
}

let lastUntilMs = Number.NaN;
let lastUntil = '';
