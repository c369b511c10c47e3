import { resumeRun } from '@bridle/core';
import type { RunLease } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { type RunRecovery, recoverRuns } from '@bridle/store';
import type { FastifyBaseLogger } from 'fastify';
import { journaledProfile } from './journaled-profile';
import { runJournal } from './run-journal';
import { runSessionId } from './run-views';
import type { ServerContext } from './server-context';
import type { Session } from './session-store';
import { serverCaller, tenantOfRun } from './tenant-access';

/**
 * Starts resuming the runs whose owner died (running, lease expired) in the server's store: at once and
 * every `recoverIntervalMs`. The store's claim is atomic, so with many servers on one database each orphan
 * is resumed by exactly one. A run resumes with the tools its manifest lists (the skill it recorded, or the
 * profile whose tools are those; a run journaled without a manifest: its session's skill), under the server's
 * limits, and its session gets the resumed transcript. A run whose tools this server cannot rebuild is left as
 * it is (logged): once this claim lapses, another server or `bridle resume` can continue it. Undefined when the
 * store keeps no leases.
 */
export function recoverOrphans(context: ServerContext, log: FastifyBaseLogger): RunRecovery | undefined {
  if (typeof context.store.claimOrphans !== 'function') return undefined;
  return recoverRuns(context.store, {
    intervalMs: context.config.recoverIntervalMs,
    ...(context.agent.ownership?.owner === undefined ? {} : { owner: context.agent.ownership.owner }),
    ...(context.agent.ownership?.leaseMs === undefined ? {} : { leaseMs: context.agent.ownership.leaseMs }),
    resume: (lease) => resumeOrphan(context, lease, log),
    onError: (error, lease) =>
      log.warn({ runId: lease?.runId }, `recovering runs: ${errorMessage(error, 'failed')} (a later look tries again)`),
  });
}

async function resumeOrphan(context: ServerContext, lease: RunLease, log: FastifyBaseLogger): Promise<void> {
  if (!('model' in context.modelSource)) throw new Error(`no model is available: ${context.modelSource.error}`);
  const { model } = context.modelSource;
  const stored = await context.store.readRun(lease.runId);
  if (stored === undefined) return;
  const sessionId = runSessionId(stored);
  const session = sessionId === undefined ? undefined : await context.sessions.get(sessionId);
  // The tools the run had (its manifest), not whatever its session's skill gives now.
  const chosen = journaledProfile(context.profiles, stored, session?.skill);
  if ('problem' in chosen) {
    // Nothing runs: the run stays `running`, and once this claim's lease lapses it is an orphan again, for a
    // server that has its tools (or `bridle resume` with them).
    log.warn({ runId: lease.runId }, `not resuming a run whose owner died: ${chosen.problem}`);
    return;
  }
  const { profile } = chosen;
  const slot = await context.limiter.acquire();
  if (slot === undefined) return;
  // The resumed segment belongs to the run's tenant; recovery, not a key, started it.
  const caller = serverCaller(tenantOfRun(stored), 'recovery');
  const journal = runJournal(context, caller, lease.runId);
  log.info({ runId: lease.runId, owner: lease.owner }, 'resuming a run whose owner died');
  try {
    const result = await resumeRun({
      approve: () => 'ask',
      ...context.agent,
      model,
      tools: profile.tools,
      ...(profile.system === undefined ? {} : { system: profile.system }),
      timeoutMs: context.config.runTimeoutMs,
      signal: slot.signal,
      store: context.store,
      runId: lease.runId,
      ownership: { ...context.agent.ownership, lease },
      onEvent: journal.observers(),
    });
    if (session !== undefined) {
      const saved: Session = { ...session, messages: result.messages, updatedAt: Date.now() };
      if (result.status === 'awaiting_approval') saved.pendingRunId = result.runId;
      else delete saved.pendingRunId;
      await context.sessions.set(saved);
    }
    log.info({ runId: lease.runId, status: result.status }, 'recovered run ended');
  } finally {
    journal.close();
    slot.release();
  }
}
