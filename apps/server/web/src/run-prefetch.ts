import { api, type RunDetail } from './api';

let early: { runId: string; detail: Promise<RunDetail> } | undefined;

/**
 * Asks for the run the page opens on (`#/runs/<id>`) while the page is still starting, before anything is
 * drawn: the run page then waits for the API once, not after its own first paint.
 */
export function prefetchRun(hash: string): void {
  const match = /^#\/runs\/([\w.:-]+)$/.exec(hash);
  // A 401 is answered when the run page asks again (the token prompt); nothing here reports it.
  if (match?.[1]) early = { runId: match[1], detail: api.run(match[1]) };
  early?.detail.catch(() => undefined);
}

/** The run: the prefetched answer once (when it is this run's), then a new read each time. */
export function readRun(runId: string, signal: AbortSignal): Promise<RunDetail> {
  const taken = early?.runId === runId ? early.detail : undefined;
  early = undefined;
  return taken ?? api.run(runId, signal);
}
