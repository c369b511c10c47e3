import type { RunEvent, Store } from '@bridle/protocol';

/** A `Store` that writes the session of a run into its journaled `run_start` events. */
export interface SessionTaggingStore extends Store {
  /** Run `runId` belongs to `sessionId`: its `run_start` events are journaled with it (until `untag`). */
  tag(runId: string, sessionId: string): void;
  untag(runId: string): void;
}

/**
 * Wraps `store` so that `listRuns({ sessionId })` finds the server's runs: core journals `run_start`
 * without a session (it knows none), so the session id is added on the way in. Everything else passes
 * through unchanged.
 */
export function sessionTaggingStore(store: Store): SessionTaggingStore {
  const sessions = new Map<string, string>();
  const tagged = (runId: string, events: RunEvent[]): RunEvent[] => {
    const sessionId = sessions.get(runId);
    if (sessionId === undefined) return events;
    return events.map((event) =>
      event.type === 'run_start' && event.sessionId === undefined ? { ...event, sessionId } : event,
    );
  };
  return {
    appendEvents: (runId, events) => store.appendEvents(runId, tagged(runId, events)),
    readRun: (runId) => store.readRun(runId),
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    close: () => store.close(),
    tag: (runId, sessionId) => sessions.set(runId, sessionId),
    untag: (runId) => sessions.delete(runId),
  };
}
