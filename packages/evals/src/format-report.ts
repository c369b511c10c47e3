import type { EvalComparison } from './compare-evals';
import { shorten } from './shorten';
import type { EvalResult } from './types';

/** Control characters, C1 and bidirectional overrides: text from a model never reaches a terminal raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what is removed
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text safe to print on one line, at most `max` characters. */
export function printable(text: string, max = 160): string {
  return shorten(text.replace(UNPRINTABLE, ' '), max);
}

function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows)
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] as number)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const mean = (value: number | null) => (value === null ? '-' : value.toFixed(2));
const dollars = (value: number) => (value === 0 ? '$0' : `$${value < 0.01 ? value.toFixed(6) : value.toFixed(4)}`);
const ms = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)}s` : `${Math.round(value)}ms`);

/** Failed cases listed under the tables before the rest are counted. */
const LISTED_FAILURES = 20;

/**
 * The terminal report of an eval: a table of variant × scorer (passed / applicable, pass rate, mean score,
 * errors; scorers that applied to no case are left out), a table per variant (cases, passed, completed, tokens, cost with the judge's share, p50 / p95
 * time), and the failed cases with each failing scorer's reason (the first 20). Bounded whatever the runs
 * answered; no escape sequences from the runs.
 */
export function formatEvalReport(result: EvalResult): string {
  const caseCount = new Set(result.cases.map((entry) => entry.caseId)).size;
  const lines = [
    `Eval ${result.evalId} · ${caseCount} ${caseCount === 1 ? 'case' : 'cases'} × ${result.variants.length} ${result.variants.length === 1 ? 'variant' : 'variants'}${result.complete ? '' : ' · INCOMPLETE (interrupted)'}`,
    '',
  ];
  const scoreRows = [['variant', 'scorer', 'passed', 'rate', 'mean', 'errors']];
  // A scorer that applied to no case of any variant (no case has its expectation) is left out of the table.
  const applied = new Set(
    result.summary.flatMap((summary) =>
      summary.scorers.filter((scorer) => scorer.total > 0).map((scorer) => scorer.scorer),
    ),
  );
  for (const summary of result.summary)
    summary.scorers
      .filter((scorer) => applied.has(scorer.scorer))
      .forEach((scorer, index) => {
        scoreRows.push([
          index === 0 ? printable(summary.variant, 60) : '',
          scorer.scorer,
          `${scorer.passed}/${scorer.total}`,
          scorer.total === 0 ? '-' : percent(scorer.passRate),
          mean(scorer.meanScore),
          String(scorer.errors),
        ]);
      });
  if (scoreRows.length > 1) lines.push(table(scoreRows), '');
  const runRows = [['variant', 'cases', 'passed', 'completed', 'tokens in/out', 'cost', 'p50', 'p95']];
  for (const summary of result.summary)
    runRows.push([
      printable(summary.variant, 60),
      String(summary.cases),
      String(summary.passed),
      String(summary.completed),
      `${summary.usage.inputTokens}/${summary.usage.outputTokens}`,
      `${dollars(summary.costUsd)}${summary.scoringCostUsd > 0 ? ` (judge ${dollars(summary.scoringCostUsd)})` : ''}`,
      ms(summary.p50Ms),
      ms(summary.p95Ms),
    ]);
  lines.push(table(runRows));
  const failed = result.cases.filter((entry) => !entry.passed);
  if (failed.length > 0) {
    lines.push('', 'Failed:');
    for (const entry of failed.slice(0, LISTED_FAILURES)) {
      const why = entry.scores.filter((score) => !score.passed);
      const text =
        why.length === 0
          ? `the run ended ${entry.status}${entry.error === undefined ? '' : `: ${entry.error}`}`
          : why
              .map(
                (score) =>
                  `${score.scorer} ${score.score === null ? 'error' : score.score.toFixed(2)}: ${score.reason}`,
              )
              .join('; ');
      lines.push(
        `  ${printable(entry.variant, 40)} · ${printable(entry.caseId, 60)} · ${printable(text, 300)} (run ${entry.runId})`,
      );
    }
    if (failed.length > LISTED_FAILURES)
      lines.push(`  ... and ${failed.length - LISTED_FAILURES} more (see the JSON result)`);
  }
  return `${lines.join('\n')}\n`;
}

const score = (value: number | null | undefined) =>
  value === undefined ? 'none' : value === null ? 'error' : value.toFixed(2);

/**
 * The terminal report of `compareEvals`: pass rates before → after (scorers that applied to no case in either are
 * left out), then each changed verdict with its reasons (the first 50).
 */
export function formatComparison(comparison: EvalComparison): string {
  const lines = [
    `Compare ${comparison.evalA} → ${comparison.evalB}: ${comparison.better} better, ${comparison.worse} worse, ${comparison.unchanged} unchanged`,
    '',
  ];
  const rows = [['variant', 'scorer', 'rate A', 'rate B', 'mean A', 'mean B']];
  for (const delta of comparison.scorers.filter((entry) => entry.passRateA !== null || entry.passRateB !== null))
    rows.push([
      delta.variantA === delta.variantB
        ? printable(delta.variantA, 60)
        : `${printable(delta.variantA, 30)} → ${printable(delta.variantB, 30)}`,
      delta.scorer,
      delta.passRateA === null ? '-' : percent(delta.passRateA),
      delta.passRateB === null ? '-' : percent(delta.passRateB),
      mean(delta.meanA),
      mean(delta.meanB),
    ]);
  lines.push(table(rows));
  if (comparison.changes.length > 0) lines.push('');
  for (const change of comparison.changes.slice(0, 50)) {
    const head = `${change.direction.padEnd(7)} ${printable(change.caseId, 60)} · ${change.scorer} ${score(change.before)} → ${score(change.after)}`;
    const why =
      change.reasonBefore === undefined
        ? printable(change.reason, 200)
        : `${printable(change.reason, 200)} (was: ${printable(change.reasonBefore, 120)})`;
    lines.push(`  ${head}: ${why}`);
  }
  if (comparison.changes.length > 50) lines.push(`  ... and ${comparison.changes.length - 50} more`);
  return `${lines.join('\n')}\n`;
}
