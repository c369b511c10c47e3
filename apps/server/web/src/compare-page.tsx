import { useEffect, useState } from 'preact/hooks';
import { api, type RunDetail, type RunRow } from './api';
import { formatCost, formatDuration, formatTokens, shortId } from './format';
import { Markdown } from './markdown';
import { answerOf, promptOf } from './prompt-answer';
import { StatusBadge } from './status-badge';
import { toolCalls } from './tool-calls';

/** One compared line: its label and each run's value as text (compared as text). */
interface Line {
  label: string;
  values: [string, string];
  markdown?: boolean;
}

function lines(a: RunDetail, b: RunDetail): Line[] {
  const pair = (read: (run: RunDetail) => string): [string, string] => [read(a), read(b)];
  return [
    { label: 'status', values: pair((run) => run.status) },
    { label: 'model', values: pair((run) => run.model ?? '–') },
    { label: 'prompt', values: pair((run) => promptOf(run.events) ?? ''), markdown: true },
    { label: 'steps', values: pair((run) => String(run.steps ?? '–')) },
    {
      label: 'tool calls',
      values: pair(
        (run) =>
          toolCalls(run.events)
            .map((call) => call.name)
            .join(', ') || '–',
      ),
    },
    { label: 'answer', values: pair((run) => answerOf(run.events) ?? ''), markdown: true },
    { label: 'tokens', values: pair((run) => formatTokens(run.usage)) },
    { label: 'cost', values: pair((run) => formatCost(run.usage?.costUsd)) },
    { label: 'time', values: pair((run) => formatDuration(run.durationMs)) },
  ];
}

/** Two runs side by side (prompt, steps, tool calls, answer, tokens, cost, time), differences marked. */
export function ComparePage({ a, b, onError }: { a: string; b?: string; onError: (error: unknown) => void }) {
  const [runs, setRuns] = useState<[RunDetail, RunDetail] | undefined>();
  const [choices, setChoices] = useState<RunRow[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    setRuns(undefined);
    if (b === undefined) {
      api.runs({ limit: 50 }, controller.signal).then(
        (page) => setChoices(page.runs.filter((run) => run.runId !== a)),
        (error) => controller.signal.aborted || onError(error),
      );
    } else {
      Promise.all([api.run(a, controller.signal), api.run(b, controller.signal)]).then(
        (pair) => setRuns(pair),
        (error) => controller.signal.aborted || onError(error),
      );
    }
    return () => controller.abort();
  }, [a, b, onError]);
  if (b === undefined) {
    return (
      <section class="compare">
        <h2>
          Compare run <span class="mono">{shortId(a)}</span> with…
        </h2>
        <ul class="choices">
          {choices.map((run) => (
            <li key={run.runId}>
              <a href={`#/compare/${a}/${run.runId}`} class="mono">
                {shortId(run.runId)}
              </a>{' '}
              {run.title ?? ''} <StatusBadge status={run.status} />
            </li>
          ))}
        </ul>
      </section>
    );
  }
  if (!runs) return <p class="muted">Loading both runs…</p>;
  const [left, right] = runs;
  return (
    <section class="compare">
      <h2>Compare</h2>
      <table class="compare-table">
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">what</span>
            </th>
            <th scope="col">
              <a href={`#/runs/${left.runId}`} class="mono">
                {shortId(left.runId)}
              </a>
            </th>
            <th scope="col">
              <a href={`#/runs/${right.runId}`} class="mono">
                {shortId(right.runId)}
              </a>
            </th>
          </tr>
        </thead>
        <tbody>
          {lines(left, right).map((line) => {
            const differs = line.values[0] !== line.values[1];
            return (
              <tr key={line.label} class={differs ? 'differs' : 'same'} data-line={line.label}>
                <th scope="row">
                  {line.label}
                  {differs && <span class="difference"> · differs</span>}
                </th>
                {line.values.map((value, index) => (
                  <td key={index}>{line.markdown ? <Markdown text={value} /> : value}</td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
