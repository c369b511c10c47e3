import { resolve } from 'node:path';
import {
  BUILT_IN_SCORERS,
  type CaseResult,
  type EvalCase,
  type EvalResult,
  type EvalVariant,
  formatEvalReport,
  llmJudge,
  printable,
  readDataset,
  runEval,
  type Scorer,
} from '@bridle/evals';
import { resolveModel } from '@bridle/models';
import { ConfigError, type Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { buildAgentSetup } from '../agent-setup';
import { openCliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { unfinishedEvalId, writeEvalResult } from '../eval-result-file';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { abortOnStopSignals } from '../stop-signals';
import type { EvalFlags } from './eval-flags';
import { casesFromRuns } from './eval-from-runs';
import { replayScorer, replayVariant } from './eval-replay';
import { inProcessVariants } from './eval-variants';

/** `replay` never calls a model; the setup still resolves one (for the tools), which needs no key. */
const NO_MODEL = 'openai-compatible:http://127.0.0.1:9/v1#replay';

function checkFlags(dataset: string | undefined, flags: EvalFlags): void {
  if ((dataset === undefined) === (flags.fromRuns === undefined))
    throw new ConfigError(
      dataset === undefined
        ? 'bridle eval needs a dataset (a JSONL file of cases) or --from-runs <filter>.'
        : `bridle eval takes a dataset (${dataset}) or --from-runs, not both.`,
    );
  if (flags.replay && flags.fromRuns === undefined)
    throw new ConfigError(
      '--replay re-runs recorded runs: give --from-runs <filter> (last:N, session:<id>, run:<id>, eval:<id>).',
    );
  if (flags.replay && (flags.model !== undefined || flags.queue !== undefined || flags.judge !== undefined))
    throw new ConfigError('--replay calls no model: leave out --model, --queue and --judge.');
  if ((flags.judge === undefined) !== (flags.rubric === undefined))
    throw new ConfigError(
      '--judge <model-id> and --rubric <text> go together: the judge scores answers against the rubric.',
    );
  for (const name of flags.scorer ?? [])
    if (!(name in BUILT_IN_SCORERS))
      throw new ConfigError(
        `Unknown scorer "${name}": use ${Object.keys(BUILT_IN_SCORERS).join(', ')} (--judge adds an LLM judge).`,
      );
  if (flags.evalId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(flags.evalId))
    throw new ConfigError(`--eval-id ${flags.evalId}: use 1 to 64 letters, digits, "_" or "-".`);
}

function chooseScorers(flags: EvalFlags, env: Record<string, string | undefined>, replay?: Scorer): Scorer[] {
  const names = flags.scorer ?? (replay ? [] : Object.keys(BUILT_IN_SCORERS));
  const scorers: Scorer[] = [
    ...(replay ? [replay] : []),
    ...names.map((name) => (BUILT_IN_SCORERS[name] as () => Scorer)()),
  ];
  if (flags.judge !== undefined && flags.rubric !== undefined)
    scorers.push(llmJudge({ model: resolveModel(flags.judge, { env }), rubric: flags.rubric }));
  return scorers;
}

/** Variant × scorer pass rates under `failUnder`, as lines. */
function underThreshold(result: EvalResult, failUnder: number): string[] {
  return result.summary.flatMap((summary) =>
    summary.scorers
      .filter((scorer) => scorer.total > 0 && scorer.passRate < failUnder)
      .map(
        (scorer) =>
          `${printable(summary.variant, 60)} ${scorer.scorer} ${Math.round(scorer.passRate * 100)}% (${scorer.passed}/${scorer.total}) < ${Math.round(failUnder * 100)}%`,
      ),
  );
}

/** The `eval` command's work; resolves with the exit code. */
export async function evalAction(
  context: CommandContext,
  dataset: string | undefined,
  flags: EvalFlags,
): Promise<number> {
  const { io, errorStyle: style } = context;
  checkFlags(dataset, flags);
  const project = await loadCliProject(context, flags);
  const datasetName = dataset ?? `runs ${flags.fromRuns}${flags.replay ? ' (replay)' : ''}`;
  const outPath = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
  let cases: EvalCase[] = [];
  if (dataset !== undefined)
    cases = await readDataset(resolve(io.cwd, dataset), { name: dataset }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ConfigError(`Cannot read the dataset ${dataset}: no such file.`);
      throw error;
    });
  const evalId = flags.evalId ?? (outPath === undefined ? undefined : unfinishedEvalId(outPath, datasetName));

  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    let store: Store;
    let storeUrl: string;
    let variants: EvalVariant[];
    let replay: Scorer | undefined;
    if (flags.queue !== undefined) {
      const { queueSettings } = await import('./worker-action');
      const settings = queueSettings({ ...flags, redis: flags.queue }, io.env, project.config, '--queue');
      const { openStore, redactUrl } = await import('@bridle/store');
      store = await openStore(settings.store, { cwd: io.cwd });
      closers.push(() => store.close());
      storeUrl = redactUrl(settings.store);
      const { openRunQueue } = await import('@bridle/queue');
      const queue = await openRunQueue({ redis: settings.redis, prefix: settings.prefix });
      closers.push(() => queue.close());
      const { queuedVariant } = await import('./eval-queue');
      const { variantTargets } = await import('./eval-variants');
      variants = variantTargets(flags, io.env, project.config).map((target) => {
        if ((target.skills?.length ?? 0) > 1)
          throw new ConfigError(
            `--queue takes one skill a variant (the name a worker offers), got ${target.skills?.join(',')}.`,
          );
        return queuedVariant(
          target.name,
          { modelId: target.modelId, ...(target.skills?.[0] === undefined ? {} : { skill: target.skills[0] }) },
          flags,
          queue,
          store,
        );
      });
    } else {
      const stored = await openCliStore(context, flags, project.config);
      closers.push(() => stored.close());
      store = stored.store;
      storeUrl = stored.url;
      variants = [];
    }
    if (flags.fromRuns !== undefined) {
      const found = await casesFromRuns(store, flags.fromRuns, storeUrl);
      cases = found.cases;
      if (flags.replay) {
        const setup = await buildAgentSetup(
          { ...flags, model: NO_MODEL, skill: flags.skill?.flatMap((skill) => skill.split(',')) },
          io,
          project.config,
        );
        variants = [replayVariant(found.runs, setup.tools)];
        replay = replayScorer(found.runs);
      }
    }
    if (variants.length === 0) variants = await inProcessVariants(context, flags, project.config);
    const scorers = chooseScorers(flags, io.env, replay);

    const total = cases.length * variants.length;
    io.stderr.write(
      style.dim(
        `${evalId === undefined ? 'eval' : `eval ${evalId} (resumed)`} · ${cases.length} ${cases.length === 1 ? 'case' : 'cases'} × ${variants.length} ${variants.length === 1 ? 'variant' : 'variants'} (${variants.map((variant) => printable(variant.name, 60)).join(', ')}) · scorers ${scorers.map((scorer) => scorer.name).join(', ')} · store ${storeUrl}\n`,
      ),
    );
    const controller = new AbortController();
    const stopSignals = abortOnStopSignals(io, controller);
    let done = 0;
    let result: EvalResult;
    try {
      result = await runEval({
        dataset: cases,
        variants,
        scorers,
        store,
        ...(evalId === undefined ? {} : { evalId }),
        concurrency: flags.concurrency,
        signal: controller.signal,
        datasetName,
        onCaseResult: (entry) => {
          done++;
          io.stderr.write(`${progressLine(entry, done, total, style)}\n`);
        },
      });
    } finally {
      stopSignals.stop();
    }
    if (outPath !== undefined) {
      try {
        writeEvalResult(outPath, result);
      } catch (error) {
        io.stderr.write(`${style.red(`bridle: cannot write the result to ${outPath}: ${errorMessage(error)}`)}\n`);
      }
    }
    io.stdout.write(formatEvalReport(result));
    if (!result.complete) {
      io.stderr.write(
        style.yellow(
          `Interrupted: ${result.cases.length} of ${total} scored. Run ${flags.out === undefined ? `the same command with --eval-id ${result.evalId}` : 'the same command again'} to resume (the runs that ended are not run again).\n`,
        ),
      );
      return stopSignals.terminated ? ExitCode.terminated : ExitCode.interrupted;
    }
    const failUnder = flags.failUnder ?? 1;
    const under = underThreshold(result, failUnder);
    if (under.length > 0) {
      io.stderr.write(`${style.red(`✗ under --fail-under ${failUnder}:\n  ${under.join('\n  ')}`)}\n`);
      return ExitCode.failed;
    }
    io.stderr.write(
      `${style.green(`✓ every variant and scorer at or above ${Math.round(failUnder * 100)}%`)} · eval ${result.evalId}${flags.out === undefined ? '' : ` → ${flags.out}`}\n`,
    );
    return ExitCode.completed;
  } finally {
    await close();
  }
}

function progressLine(entry: CaseResult, done: number, total: number, style: CommandContext['errorStyle']): string {
  const head = `[${done}/${total}] ${entry.passed ? style.green('✓') : style.red('✗')} ${printable(entry.variant, 60)} · ${printable(entry.caseId, 80)}`;
  if (entry.passed) return `${head} (${entry.status}${entry.reused ? ', from the journal' : ''})`;
  const failing = entry.scores.find((score) => !score.passed);
  return `${head} · ${failing === undefined ? `ended ${entry.status}` : `${failing.scorer}: ${printable(failing.reason, 200)}`}`;
}
