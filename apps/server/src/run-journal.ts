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
  return new ServerRunJournal(context, caller, runId);
}

/** {@link runJournal}'s journal: one object of one class per run, with one closure (its live observer). */
class ServerRunJournal implements RunJournal {
  // A plain field set once, not a getter: an object with an accessor per run cost about 0.5% of a journaling
  // server's CPU per request (perf).
  runId: string | undefined;
  readonly store: Store;
  readonly #context: ServerContext;
  readonly #caller: Caller;
  #follow: Observer | undefined;

  constructor(context: ServerContext, caller: Caller, runId: string | undefined) {
    this.runId = runId;
    this.#context = context;
    this.#caller = caller;
    this.#follow = runId === undefined ? undefined : context.live.observer(runId, caller.tenant);
    // Its run_start events name the caller's tenant and key.
    this.store = stampedStore(context.store, caller);
  }

  // A new run's first own event is its run_start (a sub-agent's events carry its parentRunId): it names the run.
  readonly #live: Observer = (event) => {
    let follow = this.#follow;
    if (follow === undefined) {
      if (event.parentRunId !== undefined) return;
      this.runId = event.runId;
      follow = this.#context.live.observer(event.runId, this.#caller.tenant);
      this.#follow = follow;
    }
    follow(event);
  };

  observers(extra?: Observer): Observer[] {
    const own = this.#context.agent.onEvent;
    const observers: Observer[] =
      own === undefined ? [] : Array.isArray(own) ? [...(own as readonly Observer[])] : [own as Observer];
    observers.push(this.#live);
    if (extra !== undefined) observers.push(extra);
    return observers;
  }

  budget(base: BudgetOptions | undefined): BudgetOptions | undefined {
    const context = this.#context;
    return context.auth.named
      ? { ...base, gate: tenantGate(context.ledger, this.#caller, context.auth.quotasOf(this.#caller.tenant)) }
      : base;
  }

  close(): void {
    if (this.runId !== undefined) this.#context.live.settle(this.runId);
  }
}
