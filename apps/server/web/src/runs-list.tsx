import { useEffect, useState } from 'preact/hooks';
import { api, type RunFilters, type RunRow } from './api';
import { formatCost, formatDuration, formatTime, formatTokens, shortId, shortModel } from './format';
import { RunFiltersForm } from './run-filters-form';
import { StatusBadge } from './status-badge';

const PAGE = 50;

/**
 * The runs list: newest first, filtered by status, model, session and time, searched by title, paged
 * (Older / Newer) and refreshed every few seconds while it shows the first page.
 */
export function RunsList({ onError, initial = {} }: { onError: (error: unknown) => void; initial?: RunFilters }) {
  const [filters, setFilters] = useState<RunFilters>(initial);
  // The `before` of each page shown so far: the last is the current page (empty: the first page).
  const [pages, setPages] = useState<string[]>([]);
  const [runs, setRuns] = useState<RunRow[] | undefined>();
  const before = pages.at(-1);
  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      api.runs({ ...filters, limit: PAGE, ...(before ? { before } : {}) }, controller.signal).then(
        (page) => setRuns(page.runs),
        (error) => controller.signal.aborted || onError(error),
      );
    load();
    // Live on the first page only: a later page stays put while the user reads it.
    const timer = before === undefined ? setInterval(load, 3000) : undefined;
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [onError, filters, before]);
  return (
    <section class="runs-page">
      <h2>Runs</h2>
      <RunFiltersForm
        filters={filters}
        onChange={(next) => {
          setPages([]);
          setFilters(next);
        }}
      />
      {!runs ? (
        <p class="muted">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p class="muted">{Object.keys(filters).length > 0 ? 'No run matches these filters.' : 'No runs yet.'}</p>
      ) : (
        <RunsTable runs={runs} />
      )}
      <nav class="pager" aria-label="Pages of runs">
        <button type="button" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>
          ← Newer
        </button>
        <button
          type="button"
          disabled={!runs || runs.length < PAGE}
          onClick={() => runs && setPages([...pages, runs.at(-1)?.updatedAt as string])}
        >
          Older →
        </button>
      </nav>
    </section>
  );
}

function RunsTable({ runs }: { runs: RunRow[] }) {
  return (
    <table class="runs">
      <thead>
        <tr>
          <th scope="col">run</th>
          <th scope="col">status</th>
          <th scope="col">model</th>
          <th scope="col">started</th>
          <th scope="col">duration</th>
          <th scope="col">steps</th>
          <th scope="col">tool calls</th>
          <th scope="col">tokens</th>
          <th scope="col">cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.runId} data-run-id={run.runId}>
            <td class="run-cell">
              <a href={`#/runs/${run.runId}`} class="mono run-link">
                {shortId(run.runId)}
              </a>{' '}
              <span class="run-title">{run.title ?? <span class="muted">(no prompt)</span>}</span>
            </td>
            <td>
              <StatusBadge status={run.status} />
            </td>
            <td class="mono" title={run.model}>
              {shortModel(run.model)}
            </td>
            <td>{formatTime(run.createdAt)}</td>
            <td class="number">{formatDuration(run.durationMs)}</td>
            <td class="number">{run.steps ?? '–'}</td>
            <td class="number">{run.toolCalls ?? '–'}</td>
            <td class="number">{formatTokens(run.usage)}</td>
            <td class="number">{formatCost(run.usage?.costUsd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
