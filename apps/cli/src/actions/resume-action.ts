import { type ApprovalDecision, resumeRun } from '@bridle/core';
import { type BridleConfig, displayText, resolveModel } from '@bridle/models';
import { ConfigError, type RunEvent, type StoredRun } from '@bridle/protocol';
import { type AgentFlags, buildAgentSetup, chooseModelId } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { ExitCode, exitCodeForStatus } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { createRunRenderer, oneLinePreview } from '../render-run';
import { abortOnStopSignals } from '../stop-signals';
import { firstRunStart, readStoredRun } from '../stored-run';
import { terminalQuestions } from '../terminal-questions';

/** Flags of `bridle resume`. */
export interface ResumeFlags extends AgentFlags, McpFlags {
  approve?: string[];
  deny?: string[];
}

type Pending = { callId: string; name: string; arguments: unknown };

/** The `resume` command's work; resolves with the exit code. */
export async function resumeAction(context: CommandContext, runId: string, flags: ResumeFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const stored = await openCliStore(context, flags, project.config);
  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  const questions = terminalQuestions(io);
  let closeMcp = async () => {};
  try {
    const run = await readStoredRun(stored.store, runId, stored.url);
    if (run.status !== 'running' && run.status !== 'awaiting_approval') {
      if (flags.approve?.length || flags.deny?.length)
        throw new ConfigError(
          `Run ${runId} is not waiting for approval (status ${run.status}): there is nothing to decide. Nothing was run.`,
        );
      io.stderr.write(`${style.dim(`Run ${runId} already ended (${run.status}): nothing to continue.`)}\n`);
      return exitCodeForStatus(run.status);
    }
    const setup = await buildAgentSetup(
      { ...flags, model: modelFor(flags, run, io.env, project.config) },
      io,
      project.config,
    );
    const mcp = await openMcpTools(flags.mcp, project, io, style);
    closeMcp = () => mcp.close();
    const tools = [...setup.tools, ...mcp.tools];
    const pending = pendingOf(run);
    for (const call of pending) {
      if (!tools.some((tool) => tool.name === call.name))
        throw new ConfigError(
          `Run ${runId} waits for a call to ${displayText(call.name)}, a tool these flags do not give: pass the tool flags the run had (-w, --skill, --allow-command, --mcp).`,
        );
    }
    const approve = createApprover({
      policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
      ...(questions ? { ask: questions.ask } : {}),
      stderr: io.stderr,
      style,
      signal: controller.signal,
    });
    const approvals = await decide(run, pending, flags, questions !== undefined, async (call) => {
      const tool = tools.find((candidate) => candidate.name === call.name);
      return (
        tool !== undefined &&
        (await approve({ id: call.callId, name: call.name, arguments: call.arguments }, tool)) === true
      );
    });
    const renderer = createRunRenderer({
      stdout: io.stdout,
      stderr: io.stderr,
      style,
      markdown: await markdownFor(io.stdout, context.outputStyle),
    });
    const result = await resumeRun({
      model: setup.model,
      tools,
      ...(setup.system === undefined ? {} : { system: setup.system }),
      ...setup.limits,
      store: stored.store,
      runId,
      approvals,
      approve,
      signal: controller.signal,
      stream: true,
      onEvent: [renderer.onEvent, ...telemetry.observers],
    });
    renderer.finish(result);
    return stopSignals.terminated && result.status === 'aborted'
      ? ExitCode.terminated
      : exitCodeForStatus(result.status);
  } finally {
    questions?.close();
    stopSignals.stop();
    await closeMcp();
    await stored.close();
    await telemetry.close();
  }
}

/**
 * The model to continue with: `--model`, else the one the run recorded. A recorded id that carries its own
 * endpoint (`openai-compatible:<url>#...`) is not taken from the store: a key goes only to an endpoint the
 * user's own settings chose.
 */
function modelFor(
  flags: ResumeFlags,
  run: StoredRun,
  env: Record<string, string | undefined>,
  config: BridleConfig,
): string | undefined {
  if (flags.model !== undefined) return flags.model;
  const recorded = firstRunStart(run)?.model;
  if (recorded === undefined) return undefined;
  if (!/^openai-compatible:[a-z]+:\/\//i.test(recorded)) return recorded;
  // The same endpoint as the user's own settings choose now (e.g. openai: through OPENAI_BASE_URL) is fine.
  const own = chooseModelId(undefined, env, config);
  try {
    if (resolveModel(own, { env }).id === recorded) return own;
  } catch {
    // Not resolvable with these settings: the message below says what to do.
  }
  throw new ConfigError(
    `Run ${run.runId} used ${displayText(recorded)}, whose endpoint is in the id: pass --model to say which model and endpoint to continue with.`,
  );
}

function pendingOf(run: StoredRun): Pending[] {
  if (run.status !== 'awaiting_approval') return [];
  const end = [...run.events]
    .reverse()
    .find(
      (event): event is Extract<RunEvent, { type: 'run_end' }> =>
        event.type === 'run_end' && event.parentRunId === undefined,
    );
  return end?.pendingApprovals ?? [];
}

/** The decisions: flags first, then `--yes`, then a question per call on a terminal; exit 2 for calls left. */
async function decide(
  run: StoredRun,
  pending: Pending[],
  flags: ResumeFlags,
  canAsk: boolean,
  ask: (call: Pending) => Promise<boolean>,
): Promise<Record<string, ApprovalDecision>> {
  const approvals: Record<string, ApprovalDecision> = {};
  for (const callId of flags.approve ?? []) approvals[callId] = true;
  for (const callId of flags.deny ?? []) {
    if (approvals[callId] === true)
      throw new ConfigError(`Call ${JSON.stringify(callId)} is given to both --approve and --deny: pick one.`);
    approvals[callId] = { approved: false, reason: 'denied by the user (bridle resume --deny)' };
  }
  for (const callId of Object.keys(approvals)) {
    if (!pending.some((call) => call.callId === callId))
      throw new ConfigError(
        `Cannot decide call ${JSON.stringify(callId)}: it is not pending in run ${run.runId} (pending: ${pending.map((call) => JSON.stringify(call.callId)).join(', ') || 'none'}). Nothing was run.`,
      );
  }
  const left = pending.filter((call) => !(call.callId in approvals));
  if (left.length === 0) return approvals;
  if (flags.yes) {
    for (const call of left) approvals[call.callId] = true;
    return approvals;
  }
  if (!canAsk) {
    const list = left.map(
      (call) =>
        `${displayText(call.callId)} ${displayText(call.name)} ${displayText(oneLinePreview(call.arguments, 200))}`,
    );
    throw new ConfigError(
      `Run ${run.runId} waits for approval of: ${list.join('; ')}. Decide with --approve <callId> or --deny <callId> (repeatable), or --yes to approve them all.`,
    );
  }
  for (const call of left) approvals[call.callId] = (await ask(call)) ? true : { approved: false };
  return approvals;
}
