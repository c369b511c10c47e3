import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type InspectorEvent, type PendingApproval, postJson, type RunDetail } from './api';
import { ApprovalCard } from './approval-card';
import { CopyReplay } from './copy-replay';
import { firstLine, shortId } from './format';
import { PromptAnswer, promptOf } from './prompt-answer';
import { RunFacts } from './run-facts';
import { StatusBadge } from './status-badge';
import { Steering } from './steering';
import { StepChart } from './step-chart';
import { ParentOf } from './sub-agent-of';
import { Timeline } from './timeline';
import { ToolCalls } from './tool-calls';
import { useRunDetail } from './use-run-detail';
import { Waterfall } from './waterfall';

/** At most this many sub-agent runs are read for the waterfall. */
const MAX_SUB_AGENTS = 20;

/** The events of a run's sub-agents (and theirs), by the call that started each. */
function useSubAgents(detail: RunDetail | undefined): Map<string, InspectorEvent[]> {
  const [children, setChildren] = useState(new Map<string, InspectorEvent[]>());
  const key = detail?.subAgents?.map((agent) => agent.runId).join(',') ?? '';
  useEffect(() => {
    // No sub-agents (most runs): nothing to read, and no second render of the whole page.
    if (key === '') {
      setChildren((current) => (current.size === 0 ? current : new Map()));
      return;
    }
    const controller = new AbortController();
    const read = async (agents: { callId: string; runId: string }[], into: Map<string, InspectorEvent[]>) => {
      for (const agent of agents.slice(0, MAX_SUB_AGENTS)) {
        const child = await api.run(agent.runId, controller.signal).catch(() => undefined);
        if (!child) continue;
        into.set(agent.callId, child.events);
        if (child.subAgents) await read(child.subAgents, into);
      }
    };
    const found = new Map<string, InspectorEvent[]>();
    read(detail?.subAgents ?? [], found).then(() => controller.signal.aborted || setChildren(found));
    return () => controller.abort();
  }, [key]);
  return children;
}

/** One run: its timeline, live while it runs, and its pending approvals with Approve and Deny. */
export function RunView({ runId, onError }: { runId: string; onError: (error: unknown) => void }) {
  const [notice, setNotice] = useState<string | undefined>();
  const [reload, setReload] = useState(0);
  const { detail, live } = useRunDetail(runId, reload, onError);

  const decide = useCallback(
    async (approval: PendingApproval, approved: boolean) => {
      setNotice(undefined);
      try {
        // Bound to the call this card shows: a stale tab's decision never applies to a later call.
        const decision = approval.digest === undefined ? approved : { approved, digest: approval.digest };
        // The server runs the resumed part on its own (202 once it is under way): leaving the page does not stop it.
        await postJson(
          `/api/runs/${encodeURIComponent(runId)}/approvals`,
          { approvals: { [approval.callId]: decision } },
          { prefer: 'respond-async' },
        );
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

  // The first screen (facts, prompt and answer, steering, waterfall) is drawn first; the sections below it
  // (step chart, tool calls, events) in the next task, so a long run shows its first screen sooner. The
  // page's own Performance marks say when each was drawn (Preact runs effects after the paint): the
  // first-render bench (bench/server/console-first-render.ts) reads them.
  const loaded = detail !== undefined;
  const [below, setBelow] = useState(false);
  useEffect(() => {
    if (!loaded) return;
    performance.mark('bridle:run-rendered', { detail: { runId } });
    setBelow(true);
  }, [loaded, runId]);
  useEffect(() => {
    if (below) performance.mark('bridle:run-complete', { detail: { runId } });
  }, [below, runId]);

  const children = useSubAgents(detail);
  if (!detail) return <p class="muted">Loading run {shortId(runId)}…</p>;
  const pending = detail.status === 'awaiting_approval' ? (detail.pendingApprovals ?? []) : [];
  const title = firstLine(promptOf(detail.events));
  return (
    <section class="run">
      <h2>
        <span class="run-title">{title ?? `Run ${shortId(runId)}`}</span> <StatusBadge status={detail.status} />
        {live && <span class="live">live</span>}
      </h2>
      <p class="run-id">
        <span class="mono muted">{runId}</span> <CopyReplay runId={runId} />{' '}
        <a href={`#/compare/${runId}`}>Compare with…</a>
      </p>
      <RunFacts detail={detail} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {detail.parent && <ParentOf parent={detail.parent} />}
      {pending.length > 0 && !detail.parent && (
        <div class="approvals">
          <h3>Waiting for your approval</h3>
          {pending.map((approval) => (
            <ApprovalCard key={approval.callId} approval={approval} runId={runId} onDecide={decide} />
          ))}
        </div>
      )}
      <PromptAnswer events={detail.events} />
      <Steering events={detail.events} />
      <Waterfall events={detail.events} children={children} />
      {below && (
        <>
          <StepChart events={detail.events} />
          <ToolCalls events={detail.events} />
          <details class="events" open>
            <summary>
              <h3>Events</h3>
            </summary>
            <Timeline events={detail.events} />
          </details>
        </>
      )}
    </section>
  );
}
