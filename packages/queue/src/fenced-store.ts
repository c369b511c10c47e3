import type { Store } from '@bridle/protocol';

/**
 * A view of the shared store for one job. Once `fence()` is called, appends are refused: the run stops at
 * its next journal write as if its process had died (core rejects with `JournalError`), so nothing it does
 * after a hand-back (an abort's `run_end`) reaches the journal and another worker resumes it cleanly.
 */
export function fencedStore(store: Store): { store: Store; fence(reason: string): void } {
  let fenced: string | undefined;
  const view: Store = {
    appendEvents: (runId, events) =>
      fenced === undefined ? store.appendEvents(runId, events) : Promise.reject(new Error(fenced)),
    readRun: (runId) => store.readRun(runId),
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    // The store is shared by every job of the worker: a job never closes it.
    close: async () => {},
  };
  return {
    store: view,
    fence(reason) {
      fenced ??= reason;
    },
  };
}
