import type { RunEvent, Store } from '@bridle/protocol';

/** The most events one read of the store returns (the store's own most); a full page is read again. */
const PAGE = 1000;

/**
 * Reads a run's journal after `after` as it grows: with `Store.readEvents`, only the new events (page by
 * page); with a store that lacks it, the whole run again (filtered).
 */
export async function eventsAfter(store: Store, runId: string, after: number): Promise<RunEvent[]> {
  if (!store.readEvents) return ((await store.readRun(runId))?.events ?? []).filter((event) => event.sequence > after);
  const events: RunEvent[] = [];
  for (let cursor = after; ; ) {
    const page = await store.readEvents(runId, { after: cursor, limit: PAGE });
    events.push(...page);
    if (page.length < PAGE) return events;
    cursor = (page.at(-1) as RunEvent).sequence;
  }
}

/** The status a journal's events leave a run in, from `status` before them (as the store derives it). */
export function statusAfter(status: string, events: readonly RunEvent[]): string {
  let now = status;
  for (const event of events) {
    if (event.type === 'run_start') now = 'running';
    else if (event.type === 'run_end') now = event.status;
  }
  return now;
}
