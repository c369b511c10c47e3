import { describe, expect, it } from 'vitest';
import {
  type CaseResult,
  compareEvals,
  type EvalResult,
  formatComparison,
  formatEvalReport,
  readEvalResult,
  summarizeEval,
} from '../src/index';

function caseResult(
  caseId: string,
  variant: string,
  scores: [string, number | null, string][],
  extra: Partial<CaseResult> = {},
): CaseResult {
  return {
    caseId,
    variant,
    runId: `run-${variant}-${caseId}`,
    status: 'completed',
    answer: 'a',
    steps: 1,
    toolCalls: 0,
    usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.001 },
    durationMs: 100,
    scores: scores.map(([scorer, score, reason]) => ({
      scorer,
      score,
      passed: score !== null && score >= 1,
      reason,
      ...(score === null ? { error: reason } : {}),
    })),
    passed: scores.every(([, score]) => score !== null && score >= 1),
    ...extra,
  };
}

function evalResult(evalId: string, cases: CaseResult[]): EvalResult {
  const variants = [...new Set(cases.map((entry) => entry.variant))];
  const scorers = [...new Set(cases.flatMap((entry) => entry.scores.map((score) => score.scorer)))];
  return {
    version: 1,
    evalId,
    complete: true,
    startedAt: '2026-12-06T00:00:00.000Z',
    finishedAt: '2026-12-06T00:00:01.000Z',
    variants,
    scorers,
    cases,
    summary: summarizeEval(cases, variants, scorers),
  };
}

const before = evalResult('before', [
  caseResult('sum', 'm', [['exactAnswer', 1, 'the answer is "4"']]),
  caseResult('look', 'm', [['exactAnswer', 0, 'the answer "x" is not "y"']]),
  caseResult('gone', 'm', [['exactAnswer', 1, 'ok']]),
]);
const after = evalResult('after', [
  caseResult('sum', 'm', [['exactAnswer', 0, 'the answer "5" is not "4"']], { durationMs: 300 }),
  caseResult('look', 'm', [['exactAnswer', 1, 'the answer is "y"']]),
  caseResult('new', 'm', [['exactAnswer', null, 'scorer exactAnswer failed: boom']]),
]);

describe('compareEvals', () => {
  it('names the cases that got worse and better, with the reasons, and the pass rates before and after', () => {
    const comparison = compareEvals(before, after);
    expect(comparison).toMatchObject({
      evalA: 'before',
      evalB: 'after',
      pairs: [{ a: 'm', b: 'm' }],
      better: 1,
      worse: 1,
      unchanged: 0,
    });
    expect(
      comparison.changes.map((change) => [change.direction, change.caseId, change.before, change.after, change.reason]),
    ).toEqual([
      ['worse', 'sum', 1, 0, 'the answer "5" is not "4"'],
      ['better', 'look', 0, 1, 'the answer is "y"'],
      ['added', 'new', undefined, null, 'scorer exactAnswer failed: boom'],
      ['removed', 'gone', 1, undefined, 'ok'],
    ]);
    expect(comparison.changes[0]).toMatchObject({
      reasonBefore: 'the answer is "4"',
      runA: 'run-m-sum',
      runB: 'run-m-sum',
    });
    expect(comparison.scorers).toEqual([
      {
        variantA: 'm',
        variantB: 'm',
        scorer: 'exactAnswer',
        passRateA: 2 / 3,
        passRateB: 1 / 3,
        meanA: 2 / 3,
        meanB: 0.5,
      },
    ]);
  });

  it('pairs the only variant of each when the names differ, and refuses evals with nothing in common', () => {
    const other = evalResult('other', [caseResult('sum', 'n', [['exactAnswer', 1, 'ok']])]);
    expect(compareEvals(before, other).pairs).toEqual([{ a: 'm', b: 'n' }]);
    const two = evalResult('two', [caseResult('sum', 'x', []), caseResult('sum', 'y', [])]);
    expect(() => compareEvals(two, other)).toThrow('The evals have no variant in common (A: x, y; B: n)');
  });

  it('prints the comparison', () => {
    expect(formatComparison(compareEvals(before, after))).toBe(
      [
        'Compare before → after: 1 better, 1 worse, 0 unchanged',
        '',
        'variant  scorer       rate A  rate B  mean A  mean B',
        'm        exactAnswer  67%     33%     0.67    0.50',
        '',
        '  worse   sum · exactAnswer 1.00 → 0.00: the answer "5" is not "4" (was: the answer is "4")',
        '  better  look · exactAnswer 0.00 → 1.00: the answer is "y" (was: the answer "x" is not "y")',
        '  added   new · exactAnswer none → error: scorer exactAnswer failed: boom',
        '  removed gone · exactAnswer 1.00 → none: ok',
        '',
      ].join('\n'),
    );
  });
});

describe('formatEvalReport', () => {
  it('prints variant × scorer, the runs per variant and the failed cases, without control characters', () => {
    const result = evalResult('e1', [
      caseResult('sum', 'model-a', [['exactAnswer', 1, 'ok']]),
      caseResult('evil', 'model-a', [['exactAnswer', 0, 'the answer "\u001b[31mred\u001b[0m" is not "4"']], {
        durationMs: 900,
      }),
    ]);
    expect(formatEvalReport(result)).toBe(
      [
        'Eval e1 · 2 cases × 1 variant',
        '',
        'variant  scorer       passed  rate  mean  errors',
        'model-a  exactAnswer  1/2     50%   0.50  0',
        '',
        'variant  cases  passed  completed  tokens in/out  cost       p50    p95',
        'model-a  2      1       2          20/10          $0.002000  100ms  900ms',
        '',
        'Failed:',
        '  model-a · evil · exactAnswer 0.00: the answer " [31mred [0m" is not "4" (run run-model-a-evil)',
        '',
      ].join('\n'),
    );
  });
});

describe('formatEvalReport with scorers that applied to no case', () => {
  it('leaves them out of the table', () => {
    const cases = [caseResult('sum', 'm', [['exactAnswer', 1, 'ok']])];
    const result = {
      ...evalResult('e2', cases),
      scorers: ['exactAnswer', 'matches'],
      summary: summarizeEval(cases, ['m'], ['exactAnswer', 'matches']),
    };
    expect(result.summary[0]?.scorers.map((scorer) => [scorer.scorer, scorer.total])).toEqual([
      ['exactAnswer', 1],
      ['matches', 0],
    ]);
    const report = formatEvalReport(result);
    expect(report).toContain('m        exactAnswer  1/1     100%  1.00  0\n');
    expect(report).not.toContain('matches');
  });
});

describe('readEvalResult', () => {
  it('reads what runEval wrote and names what is wrong with anything else', () => {
    expect(readEvalResult(JSON.stringify(before)).evalId).toBe('before');
    expect(() => readEvalResult('{', 'a.json')).toThrow(/^a\.json is not JSON/);
    expect(() => readEvalResult('{"version": 2}', 'a.json')).toThrow(
      'a.json is not an eval result of this version (expected {"version": 1, ...}, got number 2): give the file bridle eval --out wrote.',
    );
    expect(() =>
      readEvalResult('{"version": 1, "evalId": "x", "variants": [], "scorers": [], "cases": {}}', 'a.json'),
    ).toThrow('a.json: "cases" must be an array, got an object; the file is damaged.');
  });
});
