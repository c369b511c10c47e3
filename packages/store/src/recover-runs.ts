import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { ConfigError, type RunLease, type Store } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';

/** Options of {@link recoverRuns} (and of `openStore(url, { recover: true, resume })`). */
export interface RecoverRunsOptions {
  /**
   * Continues one orphan: a run that was `running` when its owner stopped renewing its lease (the process
   * died). Its lease is already this process's; pass it on, e.g.
   * `resumeRun({ ...agent, store, runId: orphan.runId, ownership: { lease: orphan } })` of @bridle/core.
   * A rejection is reported to `onError`; the run's lease then expires and a later sweep (here or
   * elsewhere) claims it again.
   */
  resume: (orphan: RunLease, store: Store) => Promise<unknown>;
  /** The name this process claims runs by (default `<host>:<pid>:recover-<random>`). */
  owner?: string;
  /** The lease each claimed run starts with, in ms (default 30000; give the resumed run the same). */
  leaseMs?: number;
  /** How often to look for orphans, in ms (default 10000); the first look is at once. */
  intervalMs?: number;
  /** Most runs claimed per look (default 10). */
  batch?: number;
  /** Hears failed looks and failed resumes (default: ignored). */
  onError?: (error: unknown, orphan?: RunLease) => void;
}

/** A running recovery. */
export interface RunRecovery {
  /** Looks for orphans now and starts resuming them; resolves with the leases it claimed. */
  sweep(): Promise<RunLease[]>;
  /** Stops looking (runs already resumed go on); idempotent. */
  stop(): void;
}

/**
 * Resumes the runs whose owner died: at once and every `intervalMs`, it claims (`store.claimOrphans`) the
 * runs that are `running` with an expired lease and hands each to `resume`. The claim is atomic in the
 * store, so with many processes recovering one database each orphan is resumed by exactly one of them.
 * Throws `ConfigError` when the store keeps no leases or an option is invalid.
 */
export function recoverRuns(store: Store, options: RecoverRunsOptions): RunRecovery {
  if (typeof store.claimOrphans !== 'function') {
    throw new ConfigError('recoverRuns: this store keeps no leases (no claimOrphans); use a store of openStore()');
  }
  if (typeof options?.resume !== 'function') {
    throw new ConfigError(
      'recoverRuns needs resume: (orphan, store) => resumeRun({ ..., ownership: { lease: orphan } })',
    );
  }
  const where = { where: 'recoverRuns' };
  const leaseMs = integerOption('leaseMs', options.leaseMs, 30_000, { min: 1, ...where });
  const intervalMs = integerOption('intervalMs', options.intervalMs, 10_000, { min: 1, ...where });
  const batch = integerOption('batch', options.batch, 10, { min: 1, max: 1000, ...where });
  const owner = options.owner ?? `${os.hostname()}:${process.pid}:recover-${randomBytes(3).toString('hex')}`;
  const report = options.onError ?? (() => {});
  let stopped = false;
  let looking: Promise<RunLease[]> | undefined;
  const sweep = (): Promise<RunLease[]> => {
    looking ??= (async () => {
      try {
        if (stopped) return [];
        const claimed = await (store.claimOrphans as NonNullable<Store['claimOrphans']>)({
          owner,
          leaseMs,
          limit: batch,
        });
        for (const orphan of claimed) {
          void Promise.resolve()
            .then(() => options.resume(orphan, store))
            .catch((error: unknown) => report(error, orphan));
        }
        return claimed;
      } catch (error) {
        report(error);
        return [];
      } finally {
        looking = undefined;
      }
    })();
    return looking;
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  // Recovery never keeps a process alive on its own.
  timer.unref();
  setImmediate(() => void sweep());
  return {
    sweep,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
