import { useCallback, useEffect, useState } from 'preact/hooks';
import { followRun, getJson, type InspectorEvent, type PendingApproval, postJson, type RunDetail } from './api';
import { preview, shortId } from './format';
import { Timeline } from './timeline';

/** One run: its timeline, live while it runs, and its pending approvals with Approve and Deny. */
export function RunView({ runId, onError }: { runId: string; onError: (error: unknown) => void }) {
  const [detail, setDetail] = useState<RunDetail | undefined>();
  const [live, setLive] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setDetail(undefined);
    getJson<RunDetail>(`/api/runs/${encodeURIComponent(runId)}`, controller.signal).then(
      (run) => {
        setDetail(run);
        if (run.status !== 'running') return;
        // Live: the stream replays the current segment, so events already shown are skipped by sequence.
        setLive(true);
        const seen = new Set(run.events.map((event) => `${event.runId}:${event.sequence}`));
        followRun(
          runId,
          (event: InspectorEvent) => {
            const key = `${event.runId}:${event.sequence}`;
            if (seen.has(key)) return;
            seen.add(key);
            setDetail(
              (current) =>
                current && {
                  ...current,
                  events: [...current.events, event],
                  ...(event.type === 'run_end' && event.runId === runId
                    ? { status: event.status ?? current.status, pendingApprovals: event.pendingApprovals ?? [] }
                    : {}),
                },
            );
          },
          controller.signal,
        )
          .catch((error) => controller.signal.aborted || onError(error))
          .finally(() => setLive(false));
      },
      (error) => controller.signal.aborted || onError(error),
    );
    return () => controller.abort();
  }, [runId, reload, onError]);

  const decide = useCallback(
    async (approval: PendingApproval, approved: boolean) => {
      setNotice(undefined);
      try {
        await postJson(`/api/runs/${encodeURIComponent(runId)}/approvals`, {
          approvals: { [approval.callId]: approved },
        });
        setNotice(
          approved ? `Approved ${approval.name}: the run resumes.` : `Denied ${approval.name}: the run resumes.`,
        );
      } catch (error) {
        // Another tab may have answered first: the server says so (409); show it and reload the run.
        setNotice(error instanceof Error ? error.message : String(error));
      }
      setReload((count) => count + 1);
    },
    [runId],
  );

  if (!detail) return <p class="muted">Loading run {shortId(runId)}…</p>;
  const pending = detail.status === 'awaiting_approval' ? (detail.pendingApprovals ?? []) : [];
  return (
    <section class="run">
      <h2>
        Run <span class="mono">{shortId(runId)}</span>{' '}
        <span class={`status status-${detail.status}`}>{detail.status}</span>
        {live && <span class="live">live</span>}
      </h2>
      <p class="mono muted">{runId}</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {pending.length > 0 && (
        <div class="approvals">
          <h3>Waiting for your approval</h3>
          {pending.map((approval) => (
            <div class="approval" key={approval.callId} data-call-id={approval.callId}>
              <div>
                <strong>{approval.name}</strong> <span class="mono muted">{approval.callId}</span>
              </div>
              <pre>{preview(approval.arguments)}</pre>
              <button type="button" class="approve" onClick={() => decide(approval, true)}>
                Approve
              </button>{' '}
              <button type="button" class="deny" onClick={() => decide(approval, false)}>
                Deny
              </button>
            </div>
          ))}
        </div>
      )}
      <Timeline events={detail.events} />
    </section>
  );
}
