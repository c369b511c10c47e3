import { randomUUID } from 'node:crypto';
import type { EventObserver } from '@bridle/events';
import type { Store } from '@bridle/protocol';
import type { ServerContext } from './server-context';

type Observer = EventObserver;

/** What a journaled run of the server passes to `runAgent` / `resumeRun`. */
export interface RunJournal {
  readonly runId: string;
  readonly store: Store;
  /** The server's observers (`agent.onEvent`, the live feed of `GET /api/runs/:id/events`) and `extra`. */
  observers(...extra: (Observer | undefined)[]): Observer[];
  /** Call once the run's promise has settled. */
  close(): void;
}

/**
 * Journals a run in the server's store under `runId` (a new UUID by default), tagged with its session,
 * and makes it followable live while it runs.
 */
export function runJournal(context: ServerContext, options: { runId?: string; sessionId?: string } = {}): RunJournal {
  const runId = options.runId ?? randomUUID();
  context.store.tag(runId, { sessionId: options.sessionId, segmentId: randomUUID() });
  const own = context.agent.onEvent;
  const base: Observer[] = [
    ...(own === undefined ? [] : Array.isArray(own) ? (own as readonly Observer[]) : [own as Observer]),
    context.live.observer(runId),
  ];
  return {
    runId,
    store: context.store,
    observers: (...extra) => [...base, ...extra.filter((observer): observer is Observer => observer !== undefined)],
    close: () => {
      context.store.untag(runId);
      context.live.settle(runId);
    },
  };
}
