import { resumeRun, runAgent } from '@bridle/core';
import type { RunEvent, Tool } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { replayModel } from '@bridle/testing';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { openCliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { recordedDecisions } from '../recorded-decisions';
import { firstDivergence, runOutcome, type ToolOutcome, toolOutcomes } from '../replay-divergence';
import { abortOnStopSignals } from '../stop-signals';
import { firstRunStart, readStoredRun } from '../stored-run';

/** Flags of `bridle replay`. */
export interface ReplayFlags extends AgentFlags, McpFlags {
  json?: boolean;
}

/**
 * `replay` never calls a model: `buildAgentSetup` still resolves one (for the tools and skills), so it gets
 * an id that needs no key and is never called.
 */
const NO_MODEL = 'openai-compatible:http://127.0.0.1:9/v1#replay';

/** The `replay` command's work; resolves with the exit code. */
export async function replayAction(context: CommandContext, runId: string, flags: ReplayFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const stored = await openCliStore(context, flags, project.config, { readOnly: true });
  const controller = new AbortController();
  const stopSignals = abortOnStopSignals(io, controller);
  let closeMcp = async () => {};
  try {
    const run = await readStoredRun(stored.store, runId, stored.url, stored.hint);
    const start = firstRunStart(run);
    if (start === undefined || (start.prompt === undefined && start.messages === undefined))
      throw new ConfigError(
        `Run ${runId} has no recorded start (prompt or messages): it cannot be replayed. Pick another run (bridle runs).`,
      );
    const setup = await buildAgentSetup({ ...flags, model: NO_MODEL }, io, project.config);
    const mcp = await openMcpTools(flags.mcp, project, io, style);
    closeMcp = () => mcp.close();
    const recordedTools = toolOutcomes(run.events, runId);
    const recordedOutcome = runOutcome(run.events, runId);
    const { tools, served } = replayTools([...setup.tools, ...mcp.tools], recordedTools, run.events, runId);
    if (served.length > 0 && !flags.json)
      io.stderr.write(style.dim(`Recorded results served for ${served.join(', ')} (not given by these flags).\n`));
    const decisions = recordedDecisions(run.events, runId);
    const events: RunEvent[] = [];
    const recordedSteps = recordedOutcome?.steps ?? run.events.filter((event) => event.type === 'model_end').length;
    const model = replayModel(run.events);
    const shared = {
      model,
      tools,
      ...(start.system === undefined ? {} : { system: start.system }),
      ...setup.limits,
      maxSteps: flags.maxSteps ?? Math.max(1, recordedSteps),
      retry: { maxRetries: 0 },
      // The recorded decisions, not today's settings: calls denied in the run are denied again, calls the run
      // paused on pause again and get the decisions their resume recorded (`bridle resume --deny`, the server).
      approve: (call: { id: string }) =>
        decisions.paused.has(call.id) ? ('ask' as const) : !decisions.deniedInRun.has(call.id),
      signal: controller.signal,
      onEvent: (event: RunEvent) => events.push(event),
    };
    let result = await runAgent({
      ...shared,
      ...(start.messages !== undefined ? { messages: start.messages } : { prompt: start.prompt as string }),
    });
    for (const recorded of decisions.resumes) {
      if (result.status !== 'awaiting_approval' || result.state === undefined) break;
      // Only the calls this pause waits for: a replay that paused elsewhere is reported as a difference below.
      // A recorded decision's digest names the recording's run: the replay's pause of that call has its own.
      const pending = new Map(result.pendingApprovals?.map((call) => [call.callId, call]));
      const approvals = Object.fromEntries(
        Object.entries(recorded).flatMap(([callId, decision]) => {
          const call = pending.get(callId);
          if (call === undefined) return [];
          return [[callId, typeof decision === 'object' ? { ...decision, digest: call.digest } : decision]];
        }),
      );
      result = await resumeRun({ ...shared, state: result.state, approvals });
    }
    const divergence = firstDivergence(
      { tools: recordedTools, outcome: recordedOutcome },
      {
        tools: toolOutcomes(events, result.runId),
        outcome: {
          status: result.status,
          steps: result.steps,
          toolCalls: result.toolCalls,
          ...(result.answer === undefined ? {} : { answer: result.answer }),
        },
      },
    );
    if (flags.json) {
      io.stdout.write(
        `${JSON.stringify({ runId, matches: divergence === undefined, ...(divergence === undefined ? {} : { divergence }), status: result.status, steps: result.steps, toolCalls: result.toolCalls })}\n`,
      );
    } else if (divergence === undefined) {
      io.stderr.write(
        `${style.green('✓')} replay of ${runId} matches the recording · ${result.status} · ${result.steps} ${result.steps === 1 ? 'step' : 'steps'} · ${result.toolCalls} tool ${result.toolCalls === 1 ? 'call' : 'calls'}\n`,
      );
    } else {
      io.stderr.write(`${style.red(`✗ replay of ${runId} differs: ${divergence}`)}\n`);
    }
    if (controller.signal.aborted) return stopSignals.terminated ? ExitCode.terminated : ExitCode.interrupted;
    return divergence === undefined ? ExitCode.completed : ExitCode.failed;
  } finally {
    stopSignals.stop();
    await closeMcp();
    await stored.close();
  }
}

/**
 * The tools of the replay: read-only tools the flags give run for real; other tools, and tools the flags do
 * not give, serve the recorded result of each call (an error result is thrown again, so it stays an error).
 */
export function replayTools(
  available: readonly Tool[],
  recorded: readonly ToolOutcome[],
  events: readonly RunEvent[],
  runId: string,
): { tools: Tool[]; served: string[] } {
  const results = new Map(recorded.map((call) => [call.callId, call]));
  const serve = (_args: unknown, context: { callId: string }) => {
    const call = results.get(context.callId);
    if (call === undefined) throw new Error(`replay: the recording has no result for call ${context.callId}`);
    if (call.isError) throw new Error(call.result);
    return call.result;
  };
  const names = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool_start' && event.runId === runId && event.parentRunId === undefined) names.add(event.name);
  }
  const tools: Tool[] = available.map((tool) =>
    tool.readOnly === true || !names.has(tool.name) ? tool : { ...tool, execute: serve },
  );
  const served: string[] = [];
  for (const name of names) {
    if (available.some((tool) => tool.name === name)) continue;
    served.push(name);
    tools.push({
      name,
      description: `${name} (its recorded results)`,
      parameters: { type: 'object' },
      execute: serve,
    });
  }
  return { tools, served };
}
