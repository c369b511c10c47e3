import { useEffect, useState } from 'preact/hooks';
import { followRun, type InspectorEvent, type RunDetail } from './api';
import { readRun } from './run-prefetch';

/** `current` with `events` appended; a `run_end` of the run itself sets its status and pending calls. */
export function withEvents(current: RunDetail, events: readonly InspectorEvent[], runId: string): RunDetail {
  let next: RunDetail = { ...current, events: [...current.events, ...events] };
  for (const event of events) {
    if (event.type === 'run_end' && event.runId === runId)
      next = { ...next, status: event.status ?? next.status, pendingApprovals: event.pendingApprovals ?? [] };
  }
  return next;
}

/**
 * A run's detail: read once (the page's prefetched answer when it is this run), then followed while it runs.
 * Live events are applied at most once per animation frame, however fast they come, and text deltas are
 * left out (nothing on the run page shows them: a model call's text is in its `model_end`), so a long live
 * run is not drawn again for every token. A new `reload` reads the run again.
 */
export function useRunDetail(
  runId: string,
  reload: number,
  onError: (error: unknown) => void,
): { detail: RunDetail | undefined; live: boolean } {
  const [detail, setDetail] = useState<RunDetail | undefined>();
  const [live, setLive] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    const pending: InspectorEvent[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const batch = pending.splice(0);
      if (batch.length > 0) setDetail((current) => current && withEvents(current, batch, runId));
    };
    setDetail(undefined);
    readRun(runId, controller.signal).then(
      (run) => {
        setDetail(run);
        if (run.status !== 'running') return;
        // Live: the stream replays the current segment, so events already shown are skipped by sequence.
        setLive(true);
        const seen = new Set(run.events.map((event) => `${event.runId}:${event.sequence}`));
        const onEvent = (event: InspectorEvent) => {
          const key = `${event.runId}:${event.sequence}`;
          if (event.type === 'text_delta' || seen.has(key)) return;
          seen.add(key);
          pending.push(event);
          frame ||= requestAnimationFrame(flush);
        };
        followRun(runId, onEvent, controller.signal)
          .catch((error) => controller.signal.aborted || onError(error))
          .finally(() => {
            // A hidden tab draws no frames: what came last is applied now.
            cancelAnimationFrame(frame);
            if (!controller.signal.aborted) flush();
            setLive(false);
          });
      },
      (error) => controller.signal.aborted || onError(error),
    );
    return () => {
      controller.abort();
      cancelAnimationFrame(frame);
    };
  }, [runId, reload, onError]);
  return { detail, live };
}
