import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type Overview } from './api';
import { Chart } from './chart';
import { formatDuration } from './format';
import { costPerDayChart, runsPerHourChart, tokensPerDayChart } from './overview-charts';

const WINDOWS: [string, number][] = [
  ['last 24 hours', 86_400_000],
  ['last 7 days', 7 * 86_400_000],
  ['last 30 days', 30 * 86_400_000],
];

/**
 * Where the time and money went: runs per hour by status, p50/p95 duration, tokens and cost per day per
 * model, the slowest tools (all computed by the store: `GET /api/overview`).
 */
export function OverviewPage({ onError }: { onError: (error: unknown) => void }) {
  const [window, setWindow] = useState(WINDOWS[1] as [string, number]);
  const [overview, setOverview] = useState<Overview | undefined>();
  useEffect(() => {
    const controller = new AbortController();
    api
      .overview({ since: new Date(Date.now() - window[1]).toISOString() }, controller.signal)
      .then(setOverview, (error) => controller.signal.aborted || onError(error));
    return () => controller.abort();
  }, [window, onError]);
  const charts = useMemo(
    () =>
      overview && {
        runs: runsPerHourChart(overview),
        tokens: tokensPerDayChart(overview),
        cost: costPerDayChart(overview),
      },
    [overview],
  );
  return (
    <section class="overview">
      <h2>Overview</h2>
      <label>
        Window{' '}
        <select
          value={window[0]}
          onChange={(event) => {
            const label = (event.target as HTMLSelectElement).value;
            setWindow(WINDOWS.find(([name]) => name === label) ?? window);
          }}
        >
          {WINDOWS.map(([label]) => (
            <option key={label} value={label}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {!overview || !charts ? (
        <p class="muted">Loading the overview…</p>
      ) : (
        <>
          <dl class="facts stats">
            <div class="fact">
              <dt>runs ended</dt>
              <dd>{overview.duration.runs}</dd>
            </div>
            <div class="fact">
              <dt>p50 duration</dt>
              <dd class="p50">{formatDuration(overview.duration.p50Ms)}</dd>
            </div>
            <div class="fact">
              <dt>p95 duration</dt>
              <dd class="p95">{formatDuration(overview.duration.p95Ms)}</dd>
            </div>
          </dl>
          <div class="charts">
            <Chart label="Runs per hour by status" {...charts.runs} />
            <Chart label="Tokens per day by model" {...charts.tokens} />
            <Chart label="Cost per day by model" {...charts.cost} />
          </div>
          <h3>Slowest tools</h3>
          {overview.slowestTools.length === 0 ? (
            <p class="muted">No tool calls in this window.</p>
          ) : (
            <table class="slowest-tools">
              <thead>
                <tr>
                  <th scope="col">tool</th>
                  <th scope="col">calls</th>
                  <th scope="col">errors</th>
                  <th scope="col">mean</th>
                  <th scope="col">slowest</th>
                </tr>
              </thead>
              <tbody>
                {overview.slowestTools.map((tool) => (
                  <tr key={tool.name}>
                    <td class="mono">{tool.name}</td>
                    <td class="number">{tool.calls}</td>
                    <td class="number">{tool.errors}</td>
                    <td class="number">{formatDuration(tool.meanMs)}</td>
                    <td class="number">{formatDuration(tool.maxMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
