import { ConfigError } from '@bridle/protocol';
import type { CaseResult, CaseScore, EvalResult } from './types';

/** One case and scorer whose verdict changed between two evals. */
export interface CaseChange {
  caseId: string;
  /** The variant in the first eval (A) and the second (B). */
  variantA: string;
  variantB: string;
  scorer: string;
  /** `null`: an error score; absent: the case or scorer was not there. */
  before?: number | null;
  after?: number | null;
  direction: 'better' | 'worse' | 'added' | 'removed';
  /** What the scorer said in B (in A for `removed`). */
  reason: string;
  /** What it said in A, when it was there. */
  reasonBefore?: string;
  /** Run ids, for a drill-down into both runs. */
  runA?: string;
  runB?: string;
}

/** One scorer of one variant pair, before and after. */
export interface ScorerDelta {
  variantA: string;
  variantB: string;
  scorer: string;
  passRateA: number | null;
  passRateB: number | null;
  meanA: number | null;
  meanB: number | null;
}

/** What `compareEvals` finds: the variant pairs it compared, every changed verdict, the pass-rate deltas. */
export interface EvalComparison {
  evalA: string;
  evalB: string;
  pairs: { a: string; b: string }[];
  /** Worse first, then better, added and removed; each group by case id. */
  changes: CaseChange[];
  better: number;
  worse: number;
  /** Case and scorer verdicts that are the same in both. */
  unchanged: number;
  scorers: ScorerDelta[];
}

/** Variants of A and B to compare: the same names; failing that, the only variant of each. */
function pairVariants(a: EvalResult, b: EvalResult): { a: string; b: string }[] {
  const same = a.variants.filter((name) => b.variants.includes(name)).map((name) => ({ a: name, b: name }));
  if (same.length > 0) return same;
  if (a.variants.length === 1 && b.variants.length === 1)
    return [{ a: a.variants[0] as string, b: b.variants[0] as string }];
  throw new ConfigError(
    `The evals have no variant in common (A: ${a.variants.join(', ')}; B: ${b.variants.join(', ')}): compare evals of the same variants, or of one variant each.`,
  );
}

const rank = (score: CaseScore | undefined) => (score === undefined ? -2 : score.score === null ? -1 : score.score);
const ORDER = { worse: 0, better: 1, added: 2, removed: 3 } as const;

/**
 * Compares two eval results (`bridle eval compare A B`): for each pair of variants (same names, or the only
 * variant of each) and each case and scorer, whether the score went up, down, appeared or disappeared, with
 * the scorer's reasons; and each scorer's pass rate and mean before and after. An error score ranks below 0.
 */
export function compareEvals(a: EvalResult, b: EvalResult): EvalComparison {
  const pairs = pairVariants(a, b);
  const changes: CaseChange[] = [];
  let unchanged = 0;
  const scorers: ScorerDelta[] = [];
  for (const pair of pairs) {
    const before = new Map(a.cases.filter((c) => c.variant === pair.a).map((c) => [c.caseId, c]));
    const after = new Map(b.cases.filter((c) => c.variant === pair.b).map((c) => [c.caseId, c]));
    const ids = [...new Set([...before.keys(), ...after.keys()])];
    for (const caseId of ids) {
      const old: CaseResult | undefined = before.get(caseId);
      const now: CaseResult | undefined = after.get(caseId);
      const names = [...new Set([...(old?.scores ?? []), ...(now?.scores ?? [])].map((score) => score.scorer))];
      for (const scorer of names) {
        const was = old?.scores.find((score) => score.scorer === scorer);
        const is = now?.scores.find((score) => score.scorer === scorer);
        const direction =
          was === undefined
            ? 'added'
            : is === undefined
              ? 'removed'
              : rank(is) > rank(was)
                ? 'better'
                : rank(is) < rank(was)
                  ? 'worse'
                  : undefined;
        if (direction === undefined) {
          unchanged++;
          continue;
        }
        changes.push({
          caseId,
          variantA: pair.a,
          variantB: pair.b,
          scorer,
          ...(was === undefined ? {} : { before: was.score }),
          ...(is === undefined ? {} : { after: is.score }),
          direction,
          reason: (is ?? was)?.reason ?? '',
          ...(was === undefined || is === undefined ? {} : { reasonBefore: was.reason }),
          ...(old === undefined ? {} : { runA: old.runId }),
          ...(now === undefined ? {} : { runB: now.runId }),
        });
      }
    }
    const summaryA = a.summary.find((entry) => entry.variant === pair.a);
    const summaryB = b.summary.find((entry) => entry.variant === pair.b);
    const names = [...new Set([...a.scorers, ...b.scorers])];
    for (const scorer of names) {
      const x = summaryA?.scorers.find((entry) => entry.scorer === scorer);
      const y = summaryB?.scorers.find((entry) => entry.scorer === scorer);
      scorers.push({
        variantA: pair.a,
        variantB: pair.b,
        scorer,
        passRateA: x === undefined || x.total === 0 ? null : x.passRate,
        passRateB: y === undefined || y.total === 0 ? null : y.passRate,
        meanA: x?.meanScore ?? null,
        meanB: y?.meanScore ?? null,
      });
    }
  }
  changes.sort((x, y) => ORDER[x.direction] - ORDER[y.direction] || x.caseId.localeCompare(y.caseId));
  return {
    evalA: a.evalId,
    evalB: b.evalId,
    pairs,
    changes,
    better: changes.filter((change) => change.direction === 'better').length,
    worse: changes.filter((change) => change.direction === 'worse').length,
    unchanged,
    scorers,
  };
}
