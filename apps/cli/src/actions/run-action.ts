import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { runAgent } from '@bridle/core';
import { type EventObserver, jsonlSink, toJsonLine } from '@bridle/events';
import { ConfigError } from '@bridle/protocol';
import { errorMessage, redactCredentials } from '@bridle/protocol/internal';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { cliApprovalRules } from '../cli-approval-rules';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { loadDecisionKey } from '../decision-key-file';
import { editPreview } from '../edit-preview';
import { ExitCode, exitCodeForStatus } from '../exit-code';
import type { LiveRegion } from '../live-region';
import { liveRegionFor } from '../live-region-for';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { signPresets } from '../preset-signature';
import { describeInstructions, loadProjectInstructions, withInstructions } from '../project-instructions';
import { readAll } from '../read-all';
import { createRunRenderer } from '../render-run';
import { abortOnStopSignals } from '../stop-signals';
import { terminalQuestions } from '../terminal-questions';

/** What `bridle run` writes on stdout: see `--output-format`. */
export type OutputFormat = 'text' | 'json' | 'stream-json';

/** Flags of `bridle run`. */
export interface RunFlags extends AgentFlags, McpFlags {
  json?: boolean;
  outputFormat?: OutputFormat;
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
  const format = outputFormat(flags);
  const prompt = await resolvePrompt(context, promptArgument, stdinArgument);
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const setup = await buildAgentSetup(flags, io, project.config);
  const rules = cliApprovalRules(io.cwd, setup, project);
  const instructions = await loadProjectInstructions({
    root: setup.workspaceRoot ?? io.cwd,
    configDir: project.configDir,
  });
  const system = withInstructions(setup.system, instructions);
  if (format === 'text' && io.stderr.isTTY === true && instructions.files.length > 0)
    io.stderr.write(`${context.errorStyle.dim(describeInstructions(instructions))}\n`);
  const observers: EventObserver[] = [];
  const markdown = format === 'text' ? await markdownFor(io.stdout, context.outputStyle) : undefined;
  const live = await liveRegionFor(io, context.errorStyle, markdown !== undefined);
  const renderer =
    format === 'text'
      ? createRunRenderer({
          stdout: io.stdout,
          stderr: io.stderr,
          style: context.errorStyle,
          markdown,
          live,
          workspaceRoot: io.stderr.isTTY === true ? setup.workspaceRoot : undefined,
        })
      : undefined;
  if (renderer) observers.push(renderer.onEvent);
  if (format === 'stream-json') observers.push((event) => io.stdout.write(toJsonLine(event)));
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
  const questions = terminalQuestions(io, () => controller.abort(new Error('Interrupted (Ctrl-C)')));
  try {
    const decisionKey = await loadDecisionKey(io.env);
    const result = await runAgent({
      model: setup.model,
      tools: [...setup.tools, ...mcp.tools],
      ...(system === undefined ? {} : { system }),
      prompt,
      ...setup.limits,
      signal: controller.signal,
      stream: format !== 'json',
      onEvent: observers,
      store: stored.store,
      // What `bridle resume` rebuilds the tools from (names only for MCP servers: no env values, no headers);
      // presets signed with the user's key, as only this user's presets are rebuilt from a store.
      manifest: {
        ...setup.manifest,
        ...(setup.manifest.presets === undefined
          ? {}
          : { presetsSignature: signPresets(decisionKey, setup.manifest.presets, setup.manifest.workspace) }),
        ...(mcp.servers.length > 0 ? { mcpServers: mcp.servers } : {}),
      },
      decisionKey,
      approve: createApprover({
        policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
        ...(questions
          ? {
              ask: (question: string, keys: readonly string[]) =>
                pausingLive(live, () => questions.ask(question, keys)),
            }
          : {}),
        ...(setup.workspaceRoot === undefined ? {} : { preview: editPreview(setup.workspaceRoot, context.errorStyle) }),
        stderr: io.stderr,
        style: context.errorStyle,
        signal: controller.signal,
        rules,
      }),
    });
    if (renderer) renderer.finish(result);
    else if (format === 'json')
      io.stdout.write(
        `${JSON.stringify({
          model: redactCredentials(setup.modelId),
          ...(instructions.files.length > 0 ? { instructions: instructions.files } : {}),
          ...result,
        })}\n`,
      );
    // The trace and the result are complete either way; SIGTERM only changes the exit code.
    return stopSignals.terminated && result.status === 'aborted'
      ? ExitCode.terminated
      : exitCodeForStatus(result.status);
  } finally {
    live?.stop();
    questions?.close();
    stopSignals.stop();
    await trace?.close();
    await telemetry.close();
    await mcp.close();
    await stored.close();
  }
}

/** Runs `ask` with the live region cleared and still, so the question is not drawn over. */
async function pausingLive<T>(live: LiveRegion | undefined, ask: () => Promise<T>): Promise<T> {
  live?.pause();
  try {
    return await ask();
  } finally {
    live?.resume();
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
    // Piped text is appended without "-" too (as other agent CLIs do); a terminal, /dev/null or a socket a parent
    // left open is not read (reading it could wait forever).
    if (stdin === undefined) return io.stdinPiped?.() ? appendStdin(context, prompt, false) : prompt;
    if (io.stdin.isTTY)
      throw new ConfigError(
        '- appends standard input, which is a terminal here: pipe the text in (bridle run "Summarize this" - < notes.txt).',
      );
    return appendStdin(context, prompt, true);
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

/** `prompt`, a blank line, then standard input; an empty input is a usage error when `-` asked for it. */
async function appendStdin(context: CommandContext, prompt: string, asked: boolean): Promise<string> {
  const text = (await readAll(context.io.stdin)).trim();
  if (text === '') {
    if (asked) throw new ConfigError('Standard input is empty: pipe the text to append, or leave out the -.');
    return prompt;
  }
  return `${prompt}\n\n${text}`;
}

/** The output format from `--output-format` and `--json` (which means `json`); two different ones are a usage error. */
function outputFormat(flags: RunFlags): OutputFormat {
  if (flags.json && flags.outputFormat !== undefined && flags.outputFormat !== 'json')
    throw new ConfigError(
      `--json and --output-format ${flags.outputFormat} disagree: give one of them (--json is --output-format json).`,
    );
  return flags.json ? 'json' : (flags.outputFormat ?? 'text');
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
