import { ConfigError, type RunState } from '@bridle/protocol';
import { decisionOf } from './approvals';
import { checkKeys, invalidOption } from './option-checks';
import { type RebuiltRun, rebuildFromJournal, rebuildFromState } from './rebuild-run';
import { type ResolvedOptions, RUN_OPTION_KEYS, resolveOptions, resolveRunId } from './resolve-options';
import { runSegment } from './run-segment';
import { readState } from './run-state';
import type { AgentResult, ApprovalDecision, ResumeRunOptions, RunAgentOptions } from './types';

/** Every accepted key of {@link ResumeRunOptions}. */
const RESUME_OPTION_KEYS = [
  // A run's session is journaled with its first segment: a resumed one keeps it.
  ...RUN_OPTION_KEYS.filter((key) => key !== 'prompt' && key !== 'messages' && key !== 'runId' && key !== 'sessionId'),
  'runId',
  'state',
  'approvals',
] as const;

type MissingResumeOption = Exclude<keyof ResumeRunOptions, (typeof RESUME_OPTION_KEYS)[number]>;
const everyResumeOptionListed: [MissingResumeOption] extends [never] ? true : MissingResumeOption = true;
void everyResumeOptionListed;

function resolveApprovals(value: unknown): Record<string, ApprovalDecision> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    invalidOption('approvals', 'an object of decisions by call id', value);
  for (const [callId, decision] of Object.entries(value)) {
    const denial = decision as { approved?: unknown; reason?: unknown } | null;
    const valid =
      typeof decision === 'boolean' ||
      (typeof denial === 'object' &&
        denial !== null &&
        denial.approved === false &&
        (denial.reason === undefined || typeof denial.reason === 'string') &&
        Object.keys(denial).every((key) => key === 'approved' || key === 'reason'));
    if (!valid)
      invalidOption(`approvals[${JSON.stringify(callId)}]`, 'true, false or { approved: false, reason? }', decision);
  }
  return value as Record<string, ApprovalDecision>;
}

/** What a run that already ended returned: rebuilt from its journal, the same as the first time. */
async function endedResult(options: ResolvedOptions, run: RebuiltRun): Promise<AgentResult> {
  const end = run.end as NonNullable<RebuiltRun['end']>;
  const result: AgentResult = {
    status: end.status as AgentResult['status'],
    messages: run.state.messages,
    steps: end.steps,
    toolCalls: end.toolCalls,
    runId: run.state.runId,
    usage: end.usage,
  };
  if (end.answer !== undefined) result.answer = end.answer;
  if (end.error !== undefined) result.error = end.error;
  if (run.state.answeredBy !== undefined) result.model = run.state.answeredBy;
  if (run.state.finishReason !== undefined) result.finishReason = run.state.finishReason;
  if (options.output && end.status === 'completed' && end.answer !== undefined) {
    const verdict = await options.output.check(end.answer);
    if (verdict.ok) result.output = verdict.value;
  }
  return result;
}

async function loadRun(options: ResolvedOptions, runId: string | undefined, state: RunState | undefined) {
  const content = state === undefined ? undefined : readState(state);
  if (content && runId !== undefined && content.runId !== runId)
    throw new ConfigError(
      `Invalid option state: it belongs to run ${content.runId}, not to runId ${runId}. Pass the state of that run.`,
    );
  const { store } = options;
  if (!store) {
    if (!content)
      throw new ConfigError(
        'resumeRun needs to know the run: give store with runId (a journaled run), or state (result.state of a paused run).',
      );
    if (content.journaled)
      throw new ConfigError(
        `Invalid option state: run ${content.runId} journals to a store, and its transcript is there. Pass that store too.`,
      );
    return rebuildFromState(content);
  }
  const id = runId ?? content?.runId;
  if (id === undefined) throw new ConfigError("resumeRun with a store needs runId (or the paused run's state).");
  const stored = await store.readRun(id);
  if (!stored || stored.events.length === 0)
    throw new ConfigError(`Unknown run ${JSON.stringify(id)}: the store has no journal for it. Check the runId.`);
  const run = await rebuildFromJournal(id, stored.events, options.output);
  if (state && run.status !== 'running' && run.status !== 'awaiting_approval') return run;
  if (state && run.end?.state?.digest !== state.digest)
    throw new ConfigError(
      `Invalid option state: it does not match the journal of run ${id} (status ${run.status}). Resume with the store and runId alone, or with the state its last pause returned.`,
    );
  return run;
}

/**
 * Continues a run that paused for approval (`awaiting_approval`) or whose process died: from `store`
 * and `runId` (the journal), or from `state` alone. `approvals` decides pending calls: approved calls
 * run with their recorded arguments, denied ones get a `Denied: ...` result; a call left out stays
 * pending. A resumed run opens a segment (`run_start` with `resumed: true`) and ends it with one
 * `run_end`. Resuming a run that already ended returns its result and emits nothing.
 *
 * Rejects with `ConfigError`, before anything runs, for invalid options, an unknown run, a state that
 * does not match its digest (or the journal), and a decision on a call that is not pending (naming it).
 * Crash recovery: model calls that completed are never made again; a tool call that started without a
 * journaled end runs again only when its tool is `readOnly` or `idempotent`, otherwise its result is
 * `Interrupted: this call may or may not have run; check before retrying`.
 */
export async function resumeRun<Output = unknown>(options: ResumeRunOptions<Output>): Promise<AgentResult<Output>> {
  if (typeof options !== 'object' || options === null) invalidOption('options', 'an options object', options);
  checkKeys('', options, RESUME_OPTION_KEYS);
  const { state, approvals, runId, ...rest } = options;
  const resolved = resolveOptions(rest as RunAgentOptions, RESUME_OPTION_KEYS, true);
  const decisions = resolveApprovals(approvals);
  const id = resolveRunId(runId);
  const run = await loadRun(resolved, id, state);
  const callIds = Object.keys(decisions);
  const batch = run.state.carried;
  if (run.status !== 'awaiting_approval' && callIds.length > 0)
    throw new ConfigError(
      `Cannot decide call ${JSON.stringify(callIds[0])}: run ${run.state.runId} is not waiting for approval (status ${run.status}). Nothing was run.`,
    );
  if (run.status !== 'running' && run.status !== 'awaiting_approval')
    return (await endedResult(resolved, run)) as AgentResult<Output>;
  for (const callId of callIds) {
    const call = batch?.asked.has(callId) ? batch.recorded.find((recorded) => recorded.id === callId) : undefined;
    if (!batch || !call)
      throw new ConfigError(
        `Cannot decide call ${JSON.stringify(callId)}: it is not pending in run ${run.state.runId} (pending: ${[...(batch?.asked ?? [])].map((pending) => JSON.stringify(pending)).join(', ') || 'none'}). Nothing was run.`,
      );
    batch.asked.delete(callId);
    batch.decisions.set(callId, decisionOf(decisions[callId] as ApprovalDecision, call.name));
  }
  const runStart = {
    model: resolved.model.id,
    ...(resolved.system === undefined ? {} : { system: resolved.system }),
    resumed: true,
    ...(callIds.length > 0 ? { approvals: decisions } : {}),
  };
  const start = { runStart, firstSequence: run.nextSequence, ...(run.finished ? { finished: run.finished } : {}) };
  return (await runSegment(resolved, run.state, start)) as AgentResult<Output>;
}
