import type { Usage } from '@bridle/protocol';
import { shorten } from './shorten';
import type { CaseResult, CaseScore, EvalCase, EvalRun, Scorer } from './types';

const MAX_ANSWER_CHARS = 2000;
const MAX_REASON_CHARS = 500;

function addUsage(total: Usage | undefined, usage: Usage | undefined): Usage | undefined {
  if (usage === undefined) return total;
  const base = total ?? { inputTokens: 0, outputTokens: 0 };
  const costUsd =
    base.costUsd === undefined && usage.costUsd === undefined ? undefined : (base.costUsd ?? 0) + (usage.costUsd ?? 0);
  return {
    inputTokens: base.inputTokens + (usage.inputTokens ?? 0),
    outputTokens: base.outputTokens + (usage.outputTokens ?? 0),
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs every scorer on a finished run and returns the case's result. Never throws: a scorer that throws,
 * or returns anything but `{ score: 0..1, reason }`, gives an error score (score `null`) with the reason.
 */
export async function scoreRun(
  run: EvalRun,
  testCase: EvalCase,
  scorers: readonly Scorer[],
  extra: { reused?: boolean } = {},
): Promise<CaseResult> {
  const scores: CaseScore[] = [];
  let scoringUsage: Usage | undefined;
  for (const scorer of scorers) {
    try {
      const result = await scorer.score(run, testCase);
      if (result === undefined) continue;
      scoringUsage = addUsage(scoringUsage, result.usage);
      const { score, reason } = result as { score: unknown; reason: unknown };
      if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
        const error = `scorer ${scorer.name} returned the score ${String(score)}, not a number from 0 to 1`;
        scores.push({ scorer: scorer.name, score: null, passed: false, reason: error, error });
        continue;
      }
      scores.push({
        scorer: scorer.name,
        score,
        passed: score >= (scorer.threshold ?? 1),
        reason: shorten(typeof reason === 'string' ? reason : String(reason), MAX_REASON_CHARS),
      });
    } catch (error) {
      scoringUsage = addUsage(scoringUsage, (error as { usage?: Usage } | undefined)?.usage);
      const message = shorten(`scorer ${scorer.name} failed: ${messageOf(error)}`, MAX_REASON_CHARS);
      scores.push({ scorer: scorer.name, score: null, passed: false, reason: message, error: message });
    }
  }
  return {
    caseId: testCase.id,
    variant: run.variant,
    runId: run.runId,
    status: run.status,
    ...(run.answer === undefined ? {} : { answer: shorten(run.answer, MAX_ANSWER_CHARS) }),
    ...(run.error === undefined ? {} : { error: shorten(run.error, MAX_REASON_CHARS) }),
    steps: run.steps,
    toolCalls: run.toolCalls,
    usage: run.usage,
    ...(scoringUsage === undefined ? {} : { scoringUsage }),
    durationMs: run.durationMs,
    scores,
    passed: scores.length > 0 ? scores.every((score) => score.passed) : run.status === 'completed',
    ...(extra.reused ? { reused: true } : {}),
  };
}
