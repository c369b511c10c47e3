import type { RunEvent } from '@bridle/protocol';

/** A listener of one live run: its events in order, then `end` once the segment's `run_end` went by. */
export interface LiveListener {
  event(event: RunEvent): void;
  end(): void;
}

interface LiveRun {
  /** The tenant whose run it is: only its keys follow it. */
  tenant: string;
  /** Every event of the current segment so far (`run_start` first), the run's own only. */
  events: RunEvent[];
  /** Made by the first follower: most runs have none. */
  listeners: Set<LiveListener> | undefined;
}

/**
 * The runs going on in this process, for `GET /api/runs/:id/events`. The journal may lag the observers
 * by an append, so each live run keeps its current segment's events here: a follower gets earlier
 * segments from the store and this segment from memory, and misses nothing in between. A segment is
 * forgotten when its `run_end` goes by (the journal has it by the time the run's promise settles).
 */
export class LiveRuns {
  readonly #runs = new Map<string, LiveRun>();

  /** The observer to give `runAgent` / `resumeRun` for run `runId` (sub-agents' events are left out). */
  observer(runId: string, tenant: string): (event: RunEvent) => void {
    return (event) => {
      if (event.runId !== runId || event.parentRunId !== undefined) return;
      let run = this.#runs.get(runId);
      if (event.type === 'run_start' || !run) {
        run = { tenant, events: [], listeners: run?.listeners };
        this.#runs.set(runId, run);
      }
      run.events.push(event);
      const listeners = run.listeners;
      if (listeners !== undefined) for (const listener of listeners) listener.event(event);
      if (event.type === 'run_end') {
        this.#runs.delete(runId);
        if (listeners !== undefined) for (const listener of listeners) listener.end();
      }
    };
  }

  /**
   * Follows `runId` when a segment of it is live here: returns the segment's events so far (the listener
   * gets the later ones), or undefined when the run is not live in this process (nothing is registered).
   */
  follow(runId: string, listener: LiveListener): { tenant: string; events: RunEvent[]; stop(): void } | undefined {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    const listeners = run.listeners ?? new Set();
    run.listeners = listeners;
    listeners.add(listener);
    return { tenant: run.tenant, events: [...run.events], stop: () => listeners.delete(listener) };
  }

  /**
   * The run's promise settled: a segment that never emitted its `run_end` (its journal refused it, it
   * threw) is over all the same; its followers' streams end.
   */
  settle(runId: string): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    this.#runs.delete(runId);
    if (run.listeners !== undefined) for (const listener of run.listeners) listener.end();
  }

  /** True while a segment of `runId` runs in this process. */
  has(runId: string): boolean {
    return this.#runs.has(runId);
  }
}
