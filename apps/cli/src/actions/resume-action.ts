import { userInfo } from 'node:os';
import { type ApprovalDecision, resumeRun } from '@bridle/core';
import { type BridleConfig, displayText, resolveModel } from '@bridle/models';
import { approvalView, ConfigError, type RunEvent, type Store, type StoredRun } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import { type AgentFlags, buildAgentSetup, chooseModelId } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { cliApprovalRules } from '../cli-approval-rules';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { loadDecisionKey } from '../decision-key-file';
import { editPreview } from '../edit-preview';
import { ExitCode, exitCodeForStatus } from '../exit-code';
import { liveRegionFor } from '../live-region-for';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { createRunRenderer } from '../render-run';
import { assertToolsRebuilt, resumeToolFlags } from '../run-manifest-flags';
import { abortOnStopSignals } from '../stop-signals';
import { firstRunStart, readStoredRun } from '../stored-run';
import { terminalQuestions } from '../terminal-questions';
import { showEndedRun } from './ended-run';

/** Flags of `bridle resume`. */
export interface ResumeFlags extends AgentFlags, McpFlags {
  approve?: string[];
  deny?: string[];
  json?: boolean;
  /** Continue with tools other than the run had (added, or with another argument schema); default: refused. */
  allowToolChanges?: boolean;
}

type Pending = {
  callId: string;
  name: string;
  arguments: unknown;
  digest?: string;
  runId?: string;
  deadline?: string;
};

/** The `resume` command's work; resolves with the exit code. */
export async function resumeAction(context: CommandContext, runId: string, flags: ResumeFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  let project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  // Nothing to resume in a store that does not exist: it is not created.
  const stored = await openCliStore(context, flags, project.config, { readOnly: true });
  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  const questions = terminalQuestions(io);
  let closeMcp = async () => {};
  let stopLive = () => {};
  try {
    const run = await readStoredRun(stored.store, runId, stored.url, stored.hint);
    const parent = firstRunStart(run)?.parent;
    if (parent !== undefined && (run.status === 'running' || run.status === 'awaiting_approval'))
      throw new ConfigError(
        `Run ${runId} is a sub-agent of run ${parent.runId}: resume that run (bridle resume ${parent.runId}), which resumes this one where it stopped. Nothing was run.`,
      );
    if (run.status !== 'running' && run.status !== 'awaiting_approval') {
      if (flags.approve?.length || flags.deny?.length)
        throw new ConfigError(
          `Run ${runId} is not waiting for approval (status ${run.status}): there is nothing to decide. Nothing was run.`,
        );
      return await showEndedRun(context, stored.store, run, flags);
    }
    // The tools the run had (its manifest), unless the flags choose tools; a restored workspace folder goes
    // through workspace trust as a -w folder would.
    const manifest = firstRunStart(run)?.manifest;
    const decisionKey = await loadDecisionKey(io.env);
    const chosen = resumeToolFlags(runId, flags, manifest, decisionKey);
    if (chosen.restored !== undefined) {
      if (chosen.flags.workspace !== undefined) project = await loadCliProject(context, chosen.flags);
      io.stderr.write(
        `${style.dim(`bridle: continuing with the tools run ${runId} had: ${displayText(chosen.restored)}`)}\n`,
      );
    }
    const setup = await buildAgentSetup(
      { ...chosen.flags, model: modelFor(flags, run, io.env, project.config) },
      io,
      project.config,
    );
    const mcp = await openMcpTools(flags.mcp, project, io, style);
    closeMcp = () => mcp.close();
    const tools = [...setup.tools, ...mcp.tools];
    // A call whose deadline passed is no longer anyone's to decide: the resume denies it (fails closed).
    const now = Date.now();
    const waiting = pendingOf(run);
    const expired = waiting.filter((call) => call.deadline !== undefined && Date.parse(call.deadline) <= now);
    for (const call of expired)
      io.stderr.write(
        `${style.yellow(`bridle: call ${displayText(call.callId)} (${displayText(call.name)}) had no decision before its deadline (${displayText(call.deadline ?? '')}): it is denied.`)}\n`,
      );
    const pending = waiting.filter((call) => !expired.includes(call));
    for (const call of pending) {
      // A sub-agent's call is of the sub-agent's tools: what this run needs is the tool that runs the sub-agent.
      const name = call.runId === undefined ? call.name : await subAgentToolName(stored.store, run, call.runId);
      if (name !== undefined && !tools.some((tool) => tool.name === name))
        throw new ConfigError(
          call.runId === undefined
            ? `Run ${runId} waits for a call to ${displayText(name)}, a tool these flags do not give: pass the tool flags the run had (-w, --skill, --allow-command, --mcp).`
            : `Run ${runId} waits for its sub-agent run ${displayText(call.runId)}, started by its tool ${displayText(name)}, which these flags do not give (the CLI's own skills have no sub-agents): resume it where that tool exists (the server or program that started it). Nothing was run.`,
        );
    }
    // Every tool the run had (its manifest), not only those of the pending calls (named more precisely above);
    // others, or another argument schema, only when the user said so.
    assertToolsRebuilt(runId, manifest, tools, flags.allowToolChanges === true);
    // The same live output as bridle run: the Markdown block still arriving drawn in place, the activity line, and
    // each edit's diff (the live region is still while a question is asked).
    const markdown = flags.json ? undefined : await markdownFor(io.stdout, context.outputStyle);
    const live = await liveRegionFor(io, style, markdown !== undefined);
    stopLive = () => live?.stop();
    const approve = createApprover({
      policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
      ...(questions
        ? {
            ask: async (question: string, keys: readonly string[]) => {
              live?.pause();
              try {
                return await questions.ask(question, keys);
              } finally {
                live?.resume();
              }
            },
          }
        : {}),
      ...(setup.workspaceRoot === undefined ? {} : { preview: editPreview(setup.workspaceRoot, style) }),
      stderr: io.stderr,
      style,
      signal: controller.signal,
      rules: cliApprovalRules(io.cwd, setup, project),
    });
    const approvals = await decide(run, pending, flags, questions !== undefined, async (call) => {
      const tool = tools.find((candidate) => candidate.name === call.name);
      return (
        tool !== undefined &&
        (await approve({ id: call.callId, name: call.name, arguments: call.arguments }, tool)) === true
      );
    });
    const renderer = flags.json
      ? undefined
      : createRunRenderer({
          stdout: io.stdout,
          stderr: io.stderr,
          style,
          markdown,
          live,
          workspaceRoot: io.stderr.isTTY === true ? setup.workspaceRoot : undefined,
        });
    const result = await resumeRun({
      model: setup.model,
      // Approvals the journal kept apply only when this user's key signed them; others are asked again.
      decisionKey,
      tools,
      ...(setup.system === undefined ? {} : { system: setup.system }),
      ...setup.limits,
      store: stored.store,
      runId,
      approvals,
      // Checked above, where the CLI names the difference and its flag.
      allowToolChanges: true,
      approve,
      signal: controller.signal,
      stream: !flags.json,
      onEvent: renderer ? [renderer.onEvent, ...telemetry.observers] : telemetry.observers,
    });
    if (renderer) renderer.finish(result);
    else io.stdout.write(`${JSON.stringify({ model: redactCredentials(setup.modelId), ...result })}\n`);
    return stopSignals.terminated && result.status === 'aborted'
      ? ExitCode.terminated
      : exitCodeForStatus(result.status);
  } finally {
    stopLive();
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
  // The same endpoint as the user's own settings choose now (e.g. openai: through OPENAI_BASE_URL) is fine. Runs
  // record the id without credentials: the user's own settings hold them.
  const own = chooseModelId(undefined, env, config);
  try {
    if (redactCredentials(resolveModel(own, { env }).id) === redactCredentials(recorded)) return own;
  } catch {
    // Not resolvable with these settings: the message below says what to do.
  }
  throw new ConfigError(
    `Run ${run.runId} used ${displayText(redactCredentials(recorded))}, whose endpoint is in the id: pass --model to say which model and endpoint to continue with.`,
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
  // Journaled with each decision (approval_decided): who decided, and how.
  const by = cliUser();
  for (const callId of flags.approve ?? []) approvals[callId] = { approved: true, by };
  for (const callId of flags.deny ?? []) {
    if (approvals[callId] !== undefined)
      throw new ConfigError(`Call ${JSON.stringify(callId)} is given to both --approve and --deny: pick one.`);
    approvals[callId] = { approved: false, reason: 'denied by the user (bridle resume --deny)', by };
  }
  for (const callId of Object.keys(approvals)) {
    if (!pending.some((call) => call.callId === callId))
      throw new ConfigError(
        `Cannot decide call ${JSON.stringify(callId)}: it is not pending in run ${run.runId} (pending: ${pending.map((call) => JSON.stringify(call.callId)).join(', ') || 'none'}). Nothing was run.`,
      );
  }
  const left = pending.filter((call) => !(call.callId in approvals));
  if (left.length === 0) return bound(approvals, pending);
  if (flags.yes) {
    for (const call of left) approvals[call.callId] = { approved: true, decidedBy: 'policy', by: '--yes' };
    return bound(approvals, pending);
  }
  if (!canAsk) {
    const list = left.map(
      (call) =>
        `${displayText(call.callId)} ${displayText(call.name)} ${displayText(approvalView(call.arguments).text)}`,
    );
    throw new ConfigError(
      `Run ${run.runId} waits for approval of: ${list.join('; ')}. Decide with --approve <callId> or --deny <callId> (repeatable), or --yes to approve them all.`,
    );
  }
  for (const call of left) approvals[call.callId] = { approved: await ask(call), by } as ApprovalDecision;
  return bound(approvals, pending);
}

/** The person at this terminal, as decisions record them (their login name). */
function cliUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'the CLI user';
  }
}

/**
 * Each decision bound to the digest of the call read as pending (when the journal has one): it applies to
 * that call only, never to a call of a later pause, whatever happens to the run between the read and the resume.
 */
function bound(approvals: Record<string, ApprovalDecision>, pending: Pending[]): Record<string, ApprovalDecision> {
  const result: Record<string, ApprovalDecision> = {};
  for (const [callId, decision] of Object.entries(approvals)) {
    const digest = pending.find((call) => call.callId === callId)?.digest;
    if (digest === undefined) result[callId] = decision;
    else if (decision === true) result[callId] = { approved: true, digest };
    else if (decision === false) result[callId] = { approved: false, digest };
    else result[callId] = { ...decision, digest } as ApprovalDecision;
  }
  return result;
}

/**
 * The tool of `run` that started the sub-agent chain ending in run `subAgentRunId` (each sub-agent's first
 * `run_start` names its parent run and call), or undefined when the journals do not say.
 */
async function subAgentToolName(store: Store, run: StoredRun, subAgentRunId: string): Promise<string | undefined> {
  let runId = subAgentRunId;
  // Bounded: a chain longer than this is not one core writes.
  for (let depth = 0; depth < 32; depth++) {
    const parent = firstRunStart((await store.readRun(runId)) ?? { ...run, events: [] })?.parent;
    if (parent === undefined) return undefined;
    if (parent.runId === run.runId) {
      const start = run.events.find((event) => event.type === 'tool_start' && event.callId === parent.callId);
      return start?.type === 'tool_start' ? start.name : undefined;
    }
    runId = parent.runId;
  }
  return undefined;
}
