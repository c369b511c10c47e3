import { resumeRun } from '@bridle/core';
import type { StoredRun } from '@bridle/protocol';
import { journaledProfile } from './journaled-profile';
import { runJournal } from './run-journal';
import { pendingCalls, runParent, runSessionId } from './run-views';
import { requireModel, type ServerContext } from './server-context';
import { serverCaller } from './tenant-access';

/** Paused runs looked at per sweep (newest first). */
const SWEEP_LIMIT = 200;

/** True when some call the run waits on has a deadline at or before `now`. */
function hasExpiredCall(run: StoredRun, now: number): boolean {
  return pendingCalls(run).some((call) => {
    const deadline = (call as { deadline?: string }).deadline;
    return deadline !== undefined && Date.parse(deadline) <= now;
  });
}

/**
 * Applies passed approval deadlines: every paused run of the store (not a sub-agent's, not one being
 * resumed here) with a call whose deadline passed is resumed without decisions, so core decides those calls
 * by the deadline (denied, or run for `autoApproveOnTimeout` tools) and the run goes on; calls still within
 * their deadline keep it paused. Runs at startup (deadlines that passed while no server was up) and then
 * periodically. Never rejects: a run that cannot be continued is logged and tried again next sweep. With
 * a queue (`BRIDLE_REDIS_URL`) it does nothing: workers hold the runs' models and tools.
 * Resolves with the ids of the runs it continued.
 */
export async function applyExpiredApprovals(
  context: ServerContext,
  log: { error(object: object, message: string): void },
): Promise<string[]> {
  if (context.queue || context.state.shuttingDown || 'error' in context.modelSource) return [];
  const continued: string[] = [];
  const now = Date.now();
  let paused: Awaited<ReturnType<ServerContext['store']['listRuns']>>;
  try {
    paused = await context.store.listRuns({ status: 'awaiting_approval', limit: SWEEP_LIMIT });
  } catch (error) {
    log.error({ err: error }, 'could not list paused runs to apply approval deadlines');
    return [];
  }
  for (const summary of paused) {
    const id = summary.runId;
    if (context.resumingRuns.has(id)) continue;
    const slot = context.limiter.tryAcquire();
    if (!slot) break;
    context.resumingRuns.add(id);
    const journal = runJournal(context, serverCaller(summary.tenant, 'approval deadline'), id);
    try {
      const run = await context.store.readRun(id);
      if (run?.status !== 'awaiting_approval' || runParent(run) !== undefined || !hasExpiredCall(run, now)) continue;
      const sessionId = runSessionId(run);
      const session = sessionId === undefined ? undefined : await context.sessions.get(sessionId);
      const chosen = journaledProfile(context.profiles, run, session?.skill);
      if ('problem' in chosen) {
        log.error({ runId: id }, `not applying the approval deadline of a paused run: ${chosen.problem}`);
        continue;
      }
      const { profile } = chosen;
      const model = requireModel(context);
      const result = await resumeRun({
        approve: () => 'ask',
        ...context.agent,
        model,
        tools: profile.tools,
        ...(profile.system === undefined ? {} : { system: profile.system }),
        timeoutMs: context.config.runTimeoutMs,
        signal: slot.signal,
        store: journal.store,
        runId: id,
        onEvent: journal.observers(),
      });
      continued.push(id);
      if (session) {
        const saved = { ...session, messages: result.messages, updatedAt: Date.now() };
        if (result.status === 'awaiting_approval') saved.pendingRunId = id;
        else delete saved.pendingRunId;
        await context.sessions.set(saved);
      }
    } catch (error) {
      log.error({ err: error, runId: id }, 'could not apply the approval deadline of a paused run');
    } finally {
      journal.close();
      context.resumingRuns.delete(id);
      slot.release();
    }
  }
  return continued;
}

/** How often a running server looks for passed deadlines, in ms. */
export const DEADLINE_SWEEP_MS = 5_000;

/**
 * Sweeps at once (deadlines that passed while no server was up), then every {@link DEADLINE_SWEEP_MS}, never two
 * sweeps at a time. Returns the function that stops it (and waits for a sweep in progress).
 */
export function sweepExpiredApprovals(
  context: ServerContext,
  log: { error(object: object, message: string): void },
): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const sweep = () => {
    running ??= applyExpiredApprovals(context, log).finally(() => {
      running = undefined;
    });
  };
  sweep();
  const timer = setInterval(sweep, DEADLINE_SWEEP_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
