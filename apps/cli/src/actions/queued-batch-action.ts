import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BatchResult } from '@bridle/batch';
import { ConfigError } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { QueuedJob, RunJobSpec } from '@bridle/queue';
import { chooseModelId } from '../agent-setup';
import { type InputItem, readBatchInput } from '../batch-input';
import { openResultAppender, type ResultAppender, readDoneIds, toResultLine } from '../batch-output';
import { createBatchProgressView } from '../batch-progress';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { watchForWorkers } from '../no-worker-notice';
import { isSameFile } from '../same-file';
import { abortOnStopSignals } from '../stop-signals';
import type { BatchFlags } from './batch-flags';
import { queueSettings } from './worker-action';

const SAFE_ID = /^[A-Za-z0-9_.-]{1,80}$/;

/**
 * The run id of an item: the same for every rerun against the same results file (so a rerun follows the
 * jobs already queued, and a job lost with Redis's data is resumed from the journal), a new one for a new
 * results file (a deleted and recreated file starts over).
 */
function runIdOf(batchKey: string, id: string): string {
  const item = SAFE_ID.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 24);
  return `batch-${batchKey}-${item}`;
}

function batchKeyOf(outPath: string): string {
  const info = statSync(outPath, { bigint: true });
  return createHash('sha256')
    .update(`${realpathSync(outPath)}\n${info.dev}\n${info.ino}\n${info.birthtimeNs}`)
    .digest('hex')
    .slice(0, 16);
}

function refuseWorkerSettings(flags: BatchFlags): void {
  const workerOnly = [
    flags.workspace !== undefined && '--workspace',
    flags.allowCommand !== undefined && '--allow-command',
    flags.mcp !== undefined && '--mcp',
  ].filter((flag): flag is string => typeof flag === 'string');
  if (workerOnly.length > 0)
    throw new ConfigError(
      `${workerOnly.join(', ')} ${workerOnly.length === 1 ? 'is a setting' : 'are settings'} of the workers with --queue: give ${workerOnly.length === 1 ? 'it' : 'them'} to \`bridle worker\`, which runs the tools.`,
    );
  if ((flags.skill?.length ?? 0) > 1)
    throw new ConfigError(
      `--queue takes one --skill (the name a worker offers), got ${flags.skill?.join(', ')}: run one batch per skill.`,
    );
}

/** The result of a settled job, as the in-process batch reports it. */
function toBatchResult(job: QueuedJob, item: InputItem, index: number): BatchResult {
  const durationMs = Math.max(0, (job.finishedAt ?? Date.now()) - (job.startedAt ?? job.enqueuedAt ?? Date.now()));
  const attempts = Math.max(1, job.attemptsMade);
  if (job.state === 'completed' && job.result) {
    const result = job.result;
    return {
      index,
      id: item.id,
      status: result.status,
      ...(result.answer === undefined ? {} : { answer: result.answer }),
      ...(result.error === undefined ? {} : { error: result.error }),
      ...(result.output === undefined ? {} : { output: result.output }),
      attempts,
      steps: result.steps,
      toolCalls: result.toolCalls,
      usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
      runId: result.runId,
      durationMs,
    };
  }
  return {
    index,
    id: item.id,
    status: 'error',
    error: job.failedReason ?? `job ${job.jobId} ended ${job.state}`,
    attempts,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    runId: job.runId,
    durationMs,
  };
}

/**
 * `bridle batch --queue <redis> --store <url>`: the same input, results file and resume rules as the
 * in-process batch, but the items are enqueued for `bridle worker`s and each result is written once, when
 * its job settles. Ctrl-C / SIGTERM stop watching (the jobs stay queued); a rerun follows them.
 */
export async function queuedBatchAction(
  context: CommandContext,
  inputFile: string,
  flags: BatchFlags,
): Promise<number> {
  const { io, errorStyle: style } = context;
  refuseWorkerSettings(flags);
  const inputPath = resolve(io.cwd, inputFile);
  const outPath = resolve(io.cwd, flags.out);
  if (inputPath === outPath || isSameFile(inputPath, outPath))
    throw new ConfigError(
      `--out ${flags.out} is the input file ${inputFile} (the same file under another name): results are appended to --out, so give a different file.`,
    );
  const project = await loadCliProject(context, flags);
  const settings = queueSettings({ ...flags, redis: flags.queue }, io.env, project.config, '--queue');
  const modelId = chooseModelId(flags.model, io.env, project.config);
  const { items, bad } = await readBatchInput(inputPath).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(
      `Cannot read the input ${inputPath}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`,
      { cause: error },
    );
  });
  for (const entry of bad) io.stderr.write(style.yellow(`${inputFile}:${entry.line}: skipped: ${entry.error}\n`));
  let done: Set<string>;
  let appender: ResultAppender;
  try {
    done = await readDoneIds(outPath);
    appender = openResultAppender(outPath);
  } catch (error) {
    throw new ConfigError(
      `Cannot write the results to ${outPath}: ${(error as Error).message}. Give --out a file in an existing, writable folder.`,
      { cause: error },
    );
  }
  const { openRunQueue, submitAll } = await import('@bridle/queue');
  const { openStore } = await import('@bridle/store');
  let queue: Awaited<ReturnType<typeof openRunQueue>> | undefined;
  try {
    // The workers journal there; checking it here turns a wrong URL into exit 2 before anything is queued.
    await (await openStore(settings.store, { cwd: io.cwd })).close();
    queue = await openRunQueue({ redis: settings.redis, prefix: settings.prefix, attempts: flags.retries + 1 });
  } catch (error) {
    appender.close();
    throw error;
  }
  const batchKey = batchKeyOf(outPath);
  const todo = items.filter((item) => !done.has(item.id));
  const skipped = items.length - todo.length;
  io.stderr.write(
    style.dim(
      `${todo.length} to run${skipped > 0 ? `, ${skipped} already in ${flags.out}` : ''}${bad.length > 0 ? `, ${bad.length} bad ${bad.length === 1 ? 'line' : 'lines'}` : ''} · ${redactCredentials(modelId)} · queue ${settings.prefix}:bridle-runs\n`,
    ),
  );
  const maxCostUsd = flags.maxCost ?? project.config.maxCostUsd;
  const specs: RunJobSpec[] = todo.map((item) => ({
    ...(item.messages === undefined ? { prompt: item.prompt as string } : { messages: item.messages }),
    // The workers call the endpoint with their own credentials: none travel through Redis.
    model: redactCredentials(modelId),
    ...(flags.skill?.[0] === undefined ? {} : { skill: flags.skill[0] }),
    ...(item.system === undefined
      ? flags.system === undefined
        ? {}
        : { system: flags.system }
      : { system: item.system }),
    ...((item.maxSteps ?? flags.maxSteps) === undefined ? {} : { maxSteps: item.maxSteps ?? flags.maxSteps }),
    ...((item.maxToolCalls ?? flags.maxToolCalls) === undefined
      ? {}
      : { maxToolCalls: item.maxToolCalls ?? flags.maxToolCalls }),
    ...((item.timeoutMs ?? flags.timeout) === undefined ? {} : { timeoutMs: item.timeoutMs ?? flags.timeout }),
    // The workers apply it (or their own budget, when that is smaller).
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    runId: runIdOf(batchKey, item.id),
  }));

  const view = createBatchProgressView(io.stderr, style, todo.length);
  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  const started = Date.now();
  const results: BatchResult[] = [];
  const written = new Set<string>();
  let lastSettled = Date.now();
  const { redactUrl } = await import('@bridle/store');
  const opened = queue;
  const stopWatching = watchForWorkers({
    workers: () => opened.queue.getWorkers(),
    lastSettled: () => lastSettled,
    notice: () =>
      view.note(
        style.yellow(
          `No worker is consuming queue ${settings.prefix}:bridle-runs: the items wait there. Start one (with the model's key in its environment): bridle worker --redis ${redactUrl(settings.redis)} --store ${redactUrl(settings.store)}${settings.prefix === 'bridle' ? '' : ` --queue-prefix ${settings.prefix}`}`,
        ),
      ),
  });
  try {
    await submitAll(queue, specs, {
      signal: controller.signal,
      onSettled(job, index) {
        const item = todo[index] as InputItem;
        if (written.has(item.id)) return;
        written.add(item.id);
        lastSettled = Date.now();
        const result = toBatchResult(job, item, index);
        results.push(result);
        appender.append(toResultLine(result));
        view.result(result);
        const succeeded = results.filter((entry) => entry.status === 'completed').length;
        view.progress({
          total: todo.length,
          done: results.length,
          succeeded,
          failed: results.length - succeeded,
          aborted: 0,
          running: todo.length - results.length,
          pending: 0,
          retries: 0,
        });
      },
    });
  } finally {
    stopWatching();
    view.stop();
    stopSignals.stop();
    appender.close();
    await queue.close();
  }
  const completed = results.filter((result) => result.status === 'completed').length;
  const failed = results.length - completed;
  const tokens = results.reduce(
    (sum, result) => ({ in: sum.in + result.usage.inputTokens, out: sum.out + result.usage.outputTokens }),
    { in: 0, out: 0 },
  );
  const parts = [`${completed} completed`, `${failed} failed`];
  const unfinished = todo.length - results.length;
  if (unfinished > 0) parts.push(`${unfinished} still queued`);
  if (skipped > 0) parts.push(`${skipped} skipped (already done)`);
  if (bad.length > 0) parts.push(`${bad.length} bad ${bad.length === 1 ? 'line' : 'lines'}`);
  parts.push(`${tokens.in} in / ${tokens.out} out tokens`, `${((Date.now() - started) / 1000).toFixed(1)}s`);
  const interrupted = controller.signal.aborted;
  const line = `${interrupted ? 'Interrupted' : 'Done'}: ${parts.join(' · ')} → ${flags.out}`;
  io.stderr.write(`${failed > 0 || bad.length > 0 || interrupted ? style.yellow(line) : style.green(line)}\n`);
  if (interrupted) {
    io.stderr.write(
      style.dim('The queued items keep running on the workers. Run the same command again to collect them.\n'),
    );
    return stopSignals.terminated ? ExitCode.terminated : ExitCode.interrupted;
  }
  return failed > 0 || bad.length > 0 ? ExitCode.failed : ExitCode.completed;
}
