import type { RunEvent, Store } from '@bridle/protocol';

/**
 * A view of the shared store for one job. Once `fence()` is called, appends are refused: the run stops at
 * its next journal write as if its process had died (core rejects with `JournalError`), so nothing it does
 * after a hand-back (an abort's `run_end`) reaches the journal and another worker resumes it cleanly.
 * `onFirstAppend` is called once, when the store took the job's first append.
 */
export function fencedStore(
  store: Store,
  runStart: { tenant?: string; by?: string } = {},
  onFirstAppend?: () => void,
): { store: Store; fence(reason: string): void } {
  let fenced: string | undefined;
  let first = onFirstAppend;
  const appended = () => {
    first?.();
    first = undefined;
  };
  // The job's tenant and key name go into each run_start it journals (none given: events pass as they are).
  const stamp =
    runStart.tenant === undefined && runStart.by === undefined
      ? undefined
      : (event: RunEvent): RunEvent => (event.type === 'run_start' ? { ...event, ...runStart } : event);
  const view: Store = {
    appendEvents: (runId, events, options) => {
      if (fenced !== undefined) return Promise.reject(new Error(fenced));
      const appending = store.appendEvents(runId, stamp === undefined ? events : events.map(stamp), options);
      return first === undefined ? appending : appending.then(appended);
    },
    readRun: (runId) => store.readRun(runId),
    listRuns: (query) => store.listRuns(query),
    // The run's lease: its token fences the job's appends in the store itself, against any other worker.
    ...(store.acquireLease && { acquireLease: store.acquireLease.bind(store) }),
    ...(store.renewLease && { renewLease: store.renewLease.bind(store) }),
    ...(store.releaseLease && { releaseLease: store.releaseLease.bind(store) }),
    // Signals reach the run through the store as well as through Redis (the run hears each once).
    ...(store.sendRunSignal && store.listenRunSignals
      ? {
          sendRunSignal: store.sendRunSignal.bind(store),
          listenRunSignals: store.listenRunSignals.bind(store),
        }
      : {}),
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
