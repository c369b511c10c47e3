import type { RunEvent, Store } from '@bridle/protocol';

/** What the server writes into a run's journaled `run_start` events. */
export interface RunTags {
  /** The session the run belongs to (`listRuns({ sessionId })` finds it). */
  sessionId?: string;
  /**
   * A new id for each segment this server writes. Two servers that resume one paused run at the same
   * millisecond would otherwise journal byte-identical `run_start` events, which a store takes as one
   * retried append: both would go on and run the approved calls twice. With it the store refuses the
   * second (`store_conflict`) before any call runs.
   */
  segmentId: string;
}

/** A `Store` that writes the server's tags into the `run_start` events of the runs it tags. */
export interface TaggingStore extends Store {
  tag(runId: string, tags: RunTags): void;
  untag(runId: string): void;
}

/** Wraps `store` so that journaled `run_start` events carry the server's {@link RunTags}; the rest passes through. */
export function taggingStore(store: Store): TaggingStore {
  const tagged = new Map<string, RunTags>();
  const withTags = (runId: string, events: RunEvent[]): RunEvent[] => {
    const tags = tagged.get(runId);
    // Only a segment's first append holds its run_start: the others pass through without a copy.
    if (tags === undefined || !events.some((event) => event.type === 'run_start')) return events;
    return events.map((event) =>
      event.type === 'run_start'
        ? {
            ...event,
            ...(event.sessionId === undefined && tags.sessionId !== undefined ? { sessionId: tags.sessionId } : {}),
            segmentId: tags.segmentId,
          }
        : event,
    );
  };
  return {
    appendEvents: (runId, events) => store.appendEvents(runId, withTags(runId, events)),
    readRun: (runId) => store.readRun(runId),
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    close: () => store.close(),
    tag: (runId, tags) => tagged.set(runId, tags),
    untag: (runId) => tagged.delete(runId),
  };
}
