import { resolve } from 'node:path';
import { type BatchResult, runBatch } from '@bridle/batch';
import { ConfigError } from '@bridle/protocol';
import { errorMessage, redactCredentials } from '@bridle/protocol/internal';
import { buildAgentSetup } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { readBatchInput } from '../batch-input';
import { openResultAppender, type ResultAppender, readDoneIds, toResultLine } from '../batch-output';
import { createBatchProgressView } from '../batch-progress';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { openMcpTools } from '../mcp-tools';
import { isSameFile } from '../same-file';
import { abortOnStopSignals } from '../stop-signals';
import type { BatchFlags } from './batch-flags';

/** The `batch` command's work; resolves with the exit code. */
export async function batchAction(context: CommandContext, inputFile: string, flags: BatchFlags): Promise<number> {
  if (flags.queue !== undefined)
    return (await import('./queued-batch-action')).queuedBatchAction(context, inputFile, flags);
  const { io, errorStyle: style } = context;
  const fromStdin = inputFile === '-';
  const inputPath = fromStdin ? '-' : resolve(io.cwd, inputFile);
  const outPath = resolve(io.cwd, flags.out);
  if (fromStdin && io.stdin.isTTY)
    throw new ConfigError(
      'bridle batch - reads the items from standard input, which is a terminal here: pipe a JSONL file in (bridle batch - --out results.jsonl < in.jsonl) or give its path.',
    );
  if (!fromStdin && (inputPath === outPath || isSameFile(inputPath, outPath)))
    throw new ConfigError(
      `--out ${flags.out} is the input file ${inputFile} (the same file under another name): results are appended to --out, so give a different file.`,
    );
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const setup = await buildAgentSetup(flags, io, project.config);
  const stored = await openCliStore(context, flags, project.config);
  const mcp = await openMcpTools(flags.mcp, project, io, style).catch(async (error: unknown) => {
    await stored.close();
    throw error;
  });
  const { items, bad } = await readBatchInput(fromStdin ? io.stdin : inputPath).catch(
    (error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        `Cannot read the input ${fromStdin ? 'from standard input' : inputPath}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`,
        { cause: error },
      );
    },
  );
  const inputName = fromStdin ? 'stdin' : inputFile;
  for (const entry of bad) io.stderr.write(style.yellow(`${inputName}:${entry.line}: skipped: ${entry.error}\n`));
  // Open the results file before anything runs: a folder or an unwritable path is a usage error (exit 2),
  // never a failure after the first model calls were paid for.
  let done: Set<string>;
  let appender: ResultAppender;
  try {
    done = await readDoneIds(outPath, { retryFailed: flags.retryFailed === true });
    appender = openResultAppender(outPath);
  } catch (error) {
    throw new ConfigError(
      `Cannot write the results to ${outPath}: ${errorMessage(error)}. Give --out a file in an existing, writable folder.`,
      { cause: error },
    );
  }
  const todo = items.filter((item) => !done.has(item.id));
  const skipped = items.length - todo.length;
  io.stderr.write(
    style.dim(
      `${todo.length} to run${skipped > 0 ? `, ${skipped} already in ${flags.out}` : ''}${bad.length > 0 ? `, ${bad.length} bad ${bad.length === 1 ? 'line' : 'lines'}` : ''} · ${redactCredentials(setup.modelId)} · concurrency ${flags.concurrency}\n`,
    ),
  );

  const view = createBatchProgressView(io.stderr, style, todo.length, { concurrency: flags.concurrency });
  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  const started = Date.now();
  let results: BatchResult[] = [];
  try {
    results = await runBatch(todo, {
      agent: {
        model: setup.model,
        tools: [...setup.tools, ...mcp.tools],
        ...(setup.system === undefined ? {} : { system: setup.system }),
        ...setup.limits,
        retry: { maxRetries: flags.retries },
        store: stored.store,
        onEvent: telemetry.observers,
        // Many items run at once: nobody is asked. Without --yes (or approval: "yes" in the settings), calls
        // that need approval are denied, with one line per tool naming --yes.
        approve: createApprover({
          policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
          whyNotAsked: 'a batch asks nobody',
          stderr: io.stderr,
          style,
        }),
      },
      concurrency: flags.concurrency,
      // One number per item: each model call is tried at most 1 + --retries times (the loop's own retries,
      // with backoff, honouring Retry-After); a run that failed is not started again on top of that, which
      // multiplied the calls (3 batch attempts x 3 loop attempts = 9 for one failing item).
      retry: { maxRetries: 0 },
      signal: controller.signal,
      onResult(result) {
        // Aborted items are not recorded, so a rerun picks them up.
        if (result.status === 'aborted') return;
        appender.append(toResultLine(result));
        view.result(result);
      },
      onProgress: (snapshot) => view.progress(snapshot),
    });
  } finally {
    view.stop();
    stopSignals.stop();
    appender.close();
    await mcp.close();
    await stored.close();
    await telemetry.close();
  }
  return summarize(context, {
    results,
    skipped,
    bad: bad.length,
    outFile: flags.out,
    ms: Date.now() - started,
    interrupted: controller.signal.aborted,
    terminated: stopSignals.terminated,
  });
}

function summarize(
  context: CommandContext,
  summary: {
    results: BatchResult[];
    skipped: number;
    bad: number;
    outFile: string;
    ms: number;
    interrupted: boolean;
    terminated: boolean;
  },
): number {
  const { io, errorStyle: style } = context;
  const completed = summary.results.filter((result) => result.status === 'completed').length;
  const notRun = summary.results.filter((result) => result.status === 'aborted').length;
  const failed = summary.results.length - completed - notRun;
  const tokens = summary.results.reduce(
    (sum, result) => ({ in: sum.in + result.usage.inputTokens, out: sum.out + result.usage.outputTokens }),
    { in: 0, out: 0 },
  );
  const parts = [`${completed} completed`, `${failed} failed`];
  if (notRun > 0) parts.push(`${notRun} not finished`);
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped (already done)`);
  if (summary.bad > 0) parts.push(`${summary.bad} bad ${summary.bad === 1 ? 'line' : 'lines'}`);
  parts.push(`${tokens.in} in / ${tokens.out} out tokens`, `${(summary.ms / 1000).toFixed(1)}s`);
  const line = `${summary.interrupted ? 'Interrupted' : 'Done'}: ${parts.join(' · ')} → ${summary.outFile}`;
  io.stderr.write(`${failed > 0 || summary.bad > 0 || summary.interrupted ? style.yellow(line) : style.green(line)}\n`);
  if (summary.interrupted) {
    io.stderr.write(
      style.dim('Run the same command again to resume: the ids already in the results file are skipped.\n'),
    );
    return summary.terminated ? ExitCode.terminated : ExitCode.interrupted;
  }
  return failed > 0 || summary.bad > 0 ? ExitCode.failed : ExitCode.completed;
}
