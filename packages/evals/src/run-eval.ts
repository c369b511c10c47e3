import { randomUUID } from 'node:crypto';
import { runBatch } from '@bridle/batch';
import { type RunAgentOptions, runAgent } from '@bridle/core';
import { ConfigError, describeValue } from '@bridle/protocol';
import { evalRunFromEvents } from './eval-run-from-events';
import { evalRunId, findCaseRun, taggedRuns } from './eval-run-id';
import { checkDataset } from './read-dataset';
import { scoreRun } from './score-run';
import { summarizeEval } from './summarize-eval';
import type { CaseResult, EvalCase, EvalResult, EvalRun, EvalVariant, RecordedRun, RunEvalOptions } from './types';

const EVAL_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface EvalItem {
  variant: number;
  testCase: EvalCase;
}

function checkOptions(options: RunEvalOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError(
      `runEval: options must be an object { dataset, variants, scorers }, got ${describeValue(options)}.`,
    );
  if (!Array.isArray(options.variants) || options.variants.length === 0)
    throw new ConfigError('runEval: variants must be a non-empty array like [{ name: "a", agent: { model } }].');
  const names = new Set<string>();
  for (const [index, variant] of options.variants.entries()) {
    if (typeof variant?.name !== 'string' || variant.name === '')
      throw new ConfigError(
        `runEval: variants[${index}].name must be a non-empty string, got ${describeValue(variant?.name)}.`,
      );
    if (names.has(variant.name))
      throw new ConfigError(`runEval: two variants are named ${JSON.stringify(variant.name)}: give each its own name.`);
    names.add(variant.name);
    if (typeof variant.run !== 'function' && typeof variant.agent?.model?.generate !== 'function')
      throw new ConfigError(
        `runEval: variant ${JSON.stringify(variant.name)} needs agent: { model, ... } or a run function.`,
      );
  }
  if (!Array.isArray(options.scorers))
    throw new ConfigError(
      `runEval: scorers must be an array of { name, score(run, testCase) }, got ${describeValue(options.scorers)}.`,
    );
  for (const [index, scorer] of options.scorers.entries())
    if (typeof scorer?.name !== 'string' || typeof scorer.score !== 'function')
      throw new ConfigError(
        `runEval: scorers[${index}] must be { name, score(run, testCase) }, got ${describeValue(scorer)}.`,
      );
  if (new Set(options.scorers.map((scorer) => scorer.name)).size !== options.scorers.length)
    throw new ConfigError('runEval: two scorers have the same name: give each its own (llmJudge takes a name option).');
  if (options.evalId !== undefined && (typeof options.evalId !== 'string' || !EVAL_ID.test(options.evalId)))
    throw new ConfigError(
      `runEval: evalId must be 1 to 64 letters, digits, "_" or "-", got ${describeValue(options.evalId)}.`,
    );
}

/** The input and limits of a case as `runAgent` options. */
function caseOptions(testCase: EvalCase): Partial<RunAgentOptions> {
  const limits = testCase.limits ?? {};
  return {
    ...(typeof testCase.input === 'string' ? { prompt: testCase.input } : { messages: testCase.input }),
    ...(limits.maxSteps === undefined ? {} : { maxSteps: limits.maxSteps }),
    ...(limits.maxToolCalls === undefined ? {} : { maxToolCalls: limits.maxToolCalls }),
    ...(limits.timeoutMs === undefined ? {} : { timeoutMs: limits.timeoutMs }),
  };
}

/**
 * Runs every case of `dataset` on every variant (through `runBatch` of @bridle/batch, `concurrency` runs at
 * once), scores each finished run with every scorer and resolves with the results and a summary per variant
 * and scorer. With a `store`, every run is journaled there and tagged with the eval (session id
 * `eval:<evalId>`); giving the same `evalId` again scores the runs that already ended from the journal and
 * runs only the rest, so an interrupted eval resumes.
 *
 * Rejects with `ConfigError` for bad options or cases (naming each) before anything runs; after that it
 * never rejects: a run that fails is a case with its status, a scorer that throws an error score.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalResult> {
  checkOptions(options);
  const cases = checkDataset(options.dataset);
  const evalId = options.evalId ?? randomUUID().replaceAll('-', '').slice(0, 12);
  const tag = `eval:${evalId}`;
  const { variants, scorers, store } = options;
  const items: EvalItem[] = variants.flatMap((_, variant) => cases.map((testCase) => ({ variant, testCase })));
  const startedAt = new Date().toISOString();
  const results: (CaseResult | undefined)[] = new Array(items.length);
  let done = 0;
  let passed = 0;
  const observe = (callback: () => void) => {
    try {
      callback();
    } catch {
      // an observer that throws never changes the eval
    }
  };

  const runCase = async (variant: EvalVariant, testCase: EvalCase, runId: string, signal: AbortSignal) => {
    if (variant.run) return variant.run({ testCase, runId, tag, signal });
    const events: RecordedRun['events'][number][] = [];
    const agent = { ...variant.agent, ...variant.forCase?.(testCase) } as RunAgentOptions;
    const own = agent.onEvent === undefined ? [] : Array.isArray(agent.onEvent) ? agent.onEvent : [agent.onEvent];
    const maxCostUsd = testCase.limits?.maxCostUsd;
    const result = await runAgent({
      ...agent,
      ...caseOptions(testCase),
      ...(maxCostUsd === undefined ? {} : { budget: { ...agent.budget, maxCostUsd } }),
      runId,
      sessionId: tag,
      ...(store === undefined ? {} : { store }),
      signal,
      onEvent: [...own, (event) => events.push(event)],
    } as RunAgentOptions);
    return { runId: result.runId, events, output: result.output } satisfies RecordedRun;
  };

  const known = await taggedRuns(store, tag);
  await runBatch(items, {
    concurrency: options.concurrency ?? 4,
    retry: { maxRetries: 0 },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    run: async (item, context) => {
      const variant = variants[item.variant] as EvalVariant;
      const baseId = evalRunId(evalId, item.variant, item.testCase.id);
      let run: EvalRun;
      let reused = false;
      try {
        const found = await findCaseRun(store, baseId, variant.run !== undefined, known);
        reused = found.ended !== undefined;
        const recorded = found.ended
          ? { runId: found.runId, events: found.ended.events }
          : await runCase(variant, item.testCase, found.runId, context.signal);
        run = evalRunFromEvents(recorded.runId, variant.name, recorded.events, recorded.output);
      } catch (error) {
        // The run could not start or be read (a queue job that failed, a store that is down): an error case.
        run = {
          ...evalRunFromEvents(baseId, variant.name, []),
          error: error instanceof Error ? error.message : String(error),
        };
      }
      // Cut off by the eval's own abort: not a result (a resumed eval runs it again).
      if (context.signal.aborted && (run.status === 'aborted' || run.status === 'error')) return { status: 'aborted' };
      const result = await scoreRun(run, item.testCase, scorers, { reused });
      results[context.index] = result;
      done++;
      if (result.passed) passed++;
      observe(() => options.onCaseResult?.(result));
      return { status: 'completed', runId: run.runId, usage: run.usage };
    },
    onProgress: (progress) =>
      observe(() => options.onProgress?.({ total: progress.total, done, passed, running: progress.running })),
  });

  const finished = results.filter((result): result is CaseResult => result !== undefined);
  const variantNames = variants.map((variant) => variant.name);
  const scorerNames = scorers.map((scorer) => scorer.name);
  return {
    version: 1,
    evalId,
    complete: finished.length === items.length,
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(options.datasetName === undefined ? {} : { dataset: options.datasetName }),
    variants: variantNames,
    scorers: scorerNames,
    cases: finished,
    summary: summarizeEval(finished, variantNames, scorerNames),
  };
}
