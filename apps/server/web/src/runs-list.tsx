import { useEffect, useState } from 'preact/hooks';
import { getJson, type RunRow } from './api';
import { formatCost, formatDuration, formatTime, shortId } from './format';

/** The runs list: newest first, refreshed every few seconds. */
export function RunsList({ onError }: { onError: (error: unknown) => void }) {
  const [runs, setRuns] = useState<RunRow[] | undefined>();
  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      getJson<{ runs: RunRow[] }>('/api/runs?limit=100', controller.signal).then(
        (body) => setRuns(body.runs),
        (error) => controller.signal.aborted || onError(error),
      );
    load();
    const timer = setInterval(load, 3000);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [onError]);
  if (!runs) return <p class="muted">Loading runs…</p>;
  if (runs.length === 0) return <p class="muted">No runs yet.</p>;
  return (
    <table class="runs">
      <thead>
        <tr>
          <th>run</th>
          <th>status</th>
          <th>model</th>
          <th>started</th>
          <th>duration</th>
          <th>steps</th>
          <th>tool calls</th>
          <th>tokens</th>
          <th>cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.runId} data-run-id={run.runId}>
            <td>
              <a href={`#/runs/${run.runId}`} class="mono">
                {shortId(run.runId)}
              </a>
            </td>
            <td>
              <span class={`status status-${run.status}`}>{run.status}</span>
            </td>
            <td class="mono">{run.model ?? '–'}</td>
            <td>{formatTime(run.createdAt)}</td>
            <td>{formatDuration(run.durationMs)}</td>
            <td>{run.steps ?? '–'}</td>
            <td>{run.toolCalls ?? '–'}</td>
            <td>{run.usage ? run.usage.inputTokens + run.usage.outputTokens : '–'}</td>
            <td>{formatCost(run.usage?.costUsd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
