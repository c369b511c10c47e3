import type { CaseResult, CaseScore, EvalResult } from '@bridle/evals';
import { useState } from 'preact/hooks';
import { formatCost, formatDuration } from './format';

/** A verdict that changed between two evals (the page's own small comparison of two loaded results). */
interface Change {
  caseId: string;
  variant: string;
  scorer: string;
  before: number | null | undefined;
  after: number | null | undefined;
  direction: 'better' | 'worse';
  reason: string;
  runA?: string;
  runB?: string;
}

/** Links only to ids a run page can show (a file could hold anything). */
const RUN_ID = /^[\w.:-]{1,128}$/;
const rank = (score: CaseScore | undefined) => (score === undefined ? -2 : (score.score ?? -1));
const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const score = (value: number | null | undefined) =>
  value === undefined ? '–' : value === null ? 'error' : value.toFixed(2);

function RunLink({ runId }: { runId: string | undefined }) {
  if (runId === undefined || !RUN_ID.test(runId)) return <span class="muted">–</span>;
  return (
    <a href={`#/runs/${runId}`} class="mono">
      {runId}
    </a>
  );
}

/** Reads a result the CLI wrote (`bridle eval --out`); throws with what is wrong. */
async function readResult(file: File): Promise<EvalResult> {
  let value: Partial<EvalResult>;
  try {
    value = JSON.parse(await file.text());
  } catch {
    throw new Error(`${file.name} is not JSON: choose the file bridle eval --out wrote.`);
  }
  if (value?.version !== 1 || !Array.isArray(value.cases) || !Array.isArray(value.summary))
    throw new Error(`${file.name} is not an eval result (bridle eval --out writes one).`);
  return value as EvalResult;
}

/** Variants of A and B to compare: the same names; failing that, the only variant of each. */
function pairs(a: EvalResult, b: EvalResult): [string, string][] {
  const same = a.variants.filter((name) => b.variants.includes(name));
  if (same.length > 0) return same.map((name) => [name, name]);
  return a.variants.length === 1 && b.variants.length === 1 ? [[a.variants[0] as string, b.variants[0] as string]] : [];
}

function compare(a: EvalResult, b: EvalResult): Change[] {
  const changes: Change[] = [];
  for (const [variantA, variantB] of pairs(a, b)) {
    const before = new Map(a.cases.filter((c) => c.variant === variantA).map((c) => [c.caseId, c]));
    for (const now of b.cases.filter((c) => c.variant === variantB)) {
      const old: CaseResult | undefined = before.get(now.caseId);
      if (old === undefined) continue;
      for (const is of now.scores) {
        const was = old.scores.find((entry) => entry.scorer === is.scorer);
        if (was === undefined || rank(is) === rank(was)) continue;
        changes.push({
          caseId: now.caseId,
          variant: variantB,
          scorer: is.scorer,
          before: was.score,
          after: is.score,
          direction: rank(is) > rank(was) ? 'better' : 'worse',
          reason: is.reason,
          runA: old.runId,
          runB: now.runId,
        });
      }
    }
  }
  return changes.sort((x, y) =>
    x.direction === y.direction ? x.caseId.localeCompare(y.caseId) : x.direction === 'worse' ? -1 : 1,
  );
}

/**
 * The eval page (`#/evals`): load a result `bridle eval --out` wrote (read in the page, never uploaded) to see
 * the variant × scorer matrix, every case with its scores and a link to its run page, and, with a second
 * result, which cases got better or worse and why.
 */
export function EvalPage() {
  const [results, setResults] = useState<[EvalResult | undefined, EvalResult | undefined]>([undefined, undefined]);
  const [error, setError] = useState<string | undefined>();
  const load = (slot: 0 | 1) => async (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      const result = await readResult(file);
      setError(undefined);
      setResults((current) => (slot === 0 ? [result, current[1]] : [current[0], result]));
    } catch (cause) {
      setError((cause as Error).message);
    }
  };
  const [a, b] = results;
  const scorers = a
    ? a.scorers.filter((name) => a.summary.some((s) => s.scorers.some((x) => x.scorer === name && x.total > 0)))
    : [];
  const changes = a && b ? compare(a, b) : [];
  return (
    <section class="evals">
      <h2>Evals</h2>
      <p class="muted">Open a result written by bridle eval --out (read here, never uploaded).</p>
      <label>
        Eval result <input type="file" accept=".json,application/json" name="eval-a" onChange={load(0)} />
      </label>{' '}
      <label>
        Compare with <input type="file" accept=".json,application/json" name="eval-b" onChange={load(1)} />
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {a && (
        <>
          <h3>
            Eval <span class="mono">{a.evalId}</span> {a.complete ? '' : '(interrupted)'}
          </h3>
          <table class="runs eval-matrix">
            <thead>
              <tr>
                <th>variant</th>
                {scorers.map((name) => (
                  <th key={name}>{name}</th>
                ))}
                <th>passed</th>
                <th>tokens</th>
                <th>cost</th>
                <th>p50 / p95</th>
              </tr>
            </thead>
            <tbody>
              {a.summary.map((summary) => (
                <tr key={summary.variant} data-variant={summary.variant}>
                  <td class="mono">{summary.variant}</td>
                  {scorers.map((name) => {
                    const entry = summary.scorers.find((x) => x.scorer === name);
                    return (
                      <td key={name} data-scorer={name}>
                        {entry && entry.total > 0
                          ? `${entry.passed}/${entry.total} · ${percent(entry.passRate)} · ${score(entry.meanScore)}`
                          : '–'}
                      </td>
                    );
                  })}
                  <td>
                    {summary.passed}/{summary.cases}
                  </td>
                  <td>{summary.usage.inputTokens + summary.usage.outputTokens}</td>
                  <td>{formatCost(summary.costUsd)}</td>
                  <td>
                    {formatDuration(summary.p50Ms)} / {formatDuration(summary.p95Ms)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Cases</h3>
          <table class="runs eval-cases">
            <thead>
              <tr>
                <th>case</th>
                <th>variant</th>
                <th>status</th>
                <th>scores</th>
                <th>run</th>
              </tr>
            </thead>
            <tbody>
              {a.cases.map((entry) => (
                <tr
                  key={`${entry.variant}/${entry.caseId}`}
                  data-case={entry.caseId}
                  class={entry.passed ? 'passed' : 'failed'}
                >
                  <td class="mono">{entry.caseId}</td>
                  <td class="mono">{entry.variant}</td>
                  <td>
                    <span class={`status status-${entry.status}`}>{entry.status}</span>
                  </td>
                  <td>
                    {entry.scores.map((verdict) => (
                      <div key={verdict.scorer} class={verdict.passed ? 'score-pass' : 'score-fail'}>
                        {verdict.passed ? '✓' : '✗'} {verdict.scorer} {score(verdict.score)}: {verdict.reason}
                      </div>
                    ))}
                  </td>
                  <td>
                    <RunLink runId={entry.runId} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {a && b && (
        <>
          <h3>
            Compared with <span class="mono">{b.evalId}</span>: {changes.filter((c) => c.direction === 'better').length}{' '}
            better, {changes.filter((c) => c.direction === 'worse').length} worse
          </h3>
          <table class="runs eval-comparison">
            <tbody>
              {changes.map((change) => (
                <tr key={`${change.variant}/${change.caseId}/${change.scorer}`} class={change.direction}>
                  <td>{change.direction}</td>
                  <td class="mono">{change.caseId}</td>
                  <td>
                    {change.scorer} {score(change.before)} → {score(change.after)}: {change.reason}
                  </td>
                  <td>
                    <RunLink runId={change.runA} /> → <RunLink runId={change.runB} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
