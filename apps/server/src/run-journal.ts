import type { BudgetOptions } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import type { Store } from '@bridle/protocol';
import type { ServerContext } from './server-context';
import { stampedStore } from './tenant-access';
import type { Caller } from './tenant-auth';
import { tenantGate } from './tenant-quotas';

type Observer = EventObserver;

/** What a journaled run of the server passes to `runAgent` / `resumeRun`. */
export interface RunJournal {
  /**
   * The run's id: the one given, or for a new run undefined until its `run_start` (core makes the id then:
   * an id it makes is new, so it does not look it up in the store first, as it must for an id it is given).
   */
  readonly runId: string | undefined;
  readonly store: Store;
  /** The server's observers (`agent.onEvent`, the live feed of `GET /api/runs/:id/events`) and `extra`. */
  observers(extra?: Observer): Observer[];
  /**
   * The run's budget: `base` (the server's `agent.budget`) with the tenant's quota gate when the server has
   * named keys (`BRIDLE_API_KEYS_FILE`), else `base` as it is.
   */
  budget(base: BudgetOptions | undefined): BudgetOptions | undefined;
  /** Call once the run's promise has settled. */
  close(): void;
}

/**
 * Journals a run of `caller`'s tenant in the server's store under `runId` (by default a new run, whose id core
 * makes) and makes it followable live while it runs. The session a run belongs to is its `run_start`'s
 * `sessionId` (the routes pass it to `runAgent`; a resumed segment keeps its first segment's), and core gives
 * every journaled segment its own `segmentId`, so two servers resuming one paused run at once conflict in the
 * store before either runs a call.
 */
export function runJournal(context: ServerContext, caller: Caller, runId?: string): RunJournal {
  const own = context.agent.onEvent;
  let follow = runId === undefined ? undefined : context.live.observer(runId, caller.tenant);
  // A new run's first own event is its run_start (a sub-agent's events carry its parentRunId): it names the run.
  const live: Observer = (event) => {
    if (follow === undefined) {
      if (event.parentRunId !== undefined) return;
      journal.runId = event.runId;
      follow = context.live.observer(event.runId, caller.tenant);
    }
    follow(event);
  };
  // A plain field set once, not a getter: an object literal with an accessor is made in V8's slow
  // dictionary mode, which cost about 0.5% of a journaling server's CPU per request (perf).
  const journal: { -readonly [Key in keyof RunJournal]: RunJournal[Key] } = {
    runId,
    // Its run_start events name the caller's tenant and key.
    store: stampedStore(context.store, caller),
    observers: (extra) => {
      const observers: Observer[] =
        own === undefined ? [] : Array.isArray(own) ? [...(own as readonly Observer[])] : [own as Observer];
      observers.push(live);
      if (extra !== undefined) observers.push(extra);
      return observers;
    },
    budget: (base) =>
      context.auth.named
        ? { ...base, gate: tenantGate(context.ledger, caller, context.auth.quotasOf(caller.tenant)) }
        : base,
    close: () => {
      if (journal.runId !== undefined) context.live.settle(journal.runId);
    },
  };
  return journal;
}
