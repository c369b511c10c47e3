import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { runAgent } from '@bridle/core';
import { type EventObserver, jsonlSink } from '@bridle/events';
import { ConfigError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { ExitCode, exitCodeForStatus } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { readAll } from '../read-all';
import { createRunRenderer } from '../render-run';
import { abortOnStopSignals } from '../stop-signals';
import { terminalQuestions } from '../terminal-questions';

/** Flags of `bridle run`. */
export interface RunFlags extends AgentFlags, McpFlags {
  json?: boolean;
  trace?: string;
}

/** The `run` command's work; resolves with the exit code. */
export async function runAction(
  context: CommandContext,
  promptArgument: string | undefined,
  flags: RunFlags,
  stdinArgument?: string,
): Promise<number> {
  const { io } = context;
  const prompt = await resolvePrompt(context, promptArgument, stdinArgument);
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const setup = await buildAgentSetup(flags, io, project.config);
  const observers: EventObserver[] = [];
  const renderer = flags.json
    ? undefined
    : createRunRenderer({
        stdout: io.stdout,
        stderr: io.stderr,
        style: context.errorStyle,
        markdown: await markdownFor(io.stdout, context.outputStyle),
      });
  if (renderer) observers.push(renderer.onEvent);
  const trace = flags.trace === undefined ? undefined : await openTrace(context, flags.trace);
  if (trace) observers.push(trace.onEvent);
  observers.push(...telemetry.observers);
  const stored = await openCliStore(context, flags, project.config);
  const mcp = await openMcpTools(flags.mcp, project, io, context.errorStyle).catch(async (error: unknown) => {
    await stored.close();
    throw error;
  });

  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  const questions = terminalQuestions(io);
  try {
    const result = await runAgent({
      model: setup.model,
      tools: [...setup.tools, ...mcp.tools],
      ...(setup.system === undefined ? {} : { system: setup.system }),
      prompt,
      ...setup.limits,
      signal: controller.signal,
      stream: !flags.json,
      onEvent: observers,
      store: stored.store,
      approve: createApprover({
        policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
        ...(questions ? { ask: questions.ask } : {}),
        stderr: io.stderr,
        style: context.errorStyle,
        signal: controller.signal,
      }),
    });
    if (renderer) renderer.finish(result);
    else io.stdout.write(`${JSON.stringify({ model: setup.modelId, ...result })}\n`);
    // The trace and the result are complete either way; SIGTERM only changes the exit code.
    return stopSignals.terminated && result.status === 'aborted'
      ? ExitCode.terminated
      : exitCodeForStatus(result.status);
  } finally {
    // Piped text without "-" would be silently dropped: say so once. Checked last, after every lazy import:
    // on Node 20 a stat of stdin can make a later import of a pnpm-linked package fail (TOOLCHAIN.md).
    if (promptArgument !== undefined && promptArgument !== '-' && stdinArgument === undefined && io.stdinPiped?.())
      io.stderr.write(
        `${context.errorStyle.yellow('bridle: standard input was piped but not read: add - after the prompt to append it (bridle run "..." -).')}\n`,
      );
    questions?.close();
    stopSignals.stop();
    await trace?.close();
    await telemetry.close();
    await mcp.close();
    await stored.close();
  }
}

async function resolvePrompt(
  context: CommandContext,
  prompt: string | undefined,
  stdin: string | undefined,
): Promise<string> {
  const { io } = context;
  if (stdin !== undefined && stdin !== '-')
    throw new ConfigError(
      `Unexpected argument "${stdin}" after the prompt: quote the whole prompt as one argument, or write - to append standard input (bridle run "Summarize this" - < notes.txt).`,
    );
  if (stdin === '-' && prompt === '-')
    throw new ConfigError('"- -": give the prompt, then - to append standard input (bridle run "Summarize this" -).');
  if (prompt !== undefined && prompt !== '-') {
    if (prompt.trim() === '')
      throw new ConfigError(
        'The prompt is empty: say what the agent should do, e.g. bridle run "What time is it in Tokyo?".',
      );
    if (stdin === undefined) return prompt;
    if (io.stdin.isTTY)
      throw new ConfigError(
        '- appends standard input, which is a terminal here: pipe the text in (bridle run "Summarize this" - < notes.txt).',
      );
    const text = (await readAll(io.stdin)).trim();
    if (text === '') throw new ConfigError('Standard input is empty: pipe the text to append, or leave out the -.');
    return `${prompt}\n\n${text}`;
  }
  if (io.stdin.isTTY && prompt === undefined) {
    throw new ConfigError(
      'No prompt: pass one (bridle run "What time is it?") or pipe it in (echo "..." | bridle run -).',
    );
  }
  const text = (await readAll(io.stdin)).trim();
  if (text === '')
    throw new ConfigError('The prompt read from stdin is empty: pipe the prompt text in, or pass it as an argument.');
  return text;
}

async function openTrace(context: CommandContext, file: string) {
  const path = resolve(context.io.cwd, file);
  try {
    // The sink opens its file lazily: open it here first, so an unwritable path stops before the run
    // (exit 2) instead of failing after the model was paid for.
    closeSync(openSync(path, 'a'));
    return jsonlSink(path);
  } catch (error) {
    throw new ConfigError(
      `Cannot write the trace to ${path}: ${errorMessage(error)}. Give a file in an existing, writable folder.`,
      { cause: error },
    );
  }
}
