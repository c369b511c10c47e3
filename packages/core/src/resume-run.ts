import { type ApprovalDecidedBody, ConfigError, type RunState } from '@bridle/protocol';
import { applyDeadlines, decidedEvent, decisionOf, pendingApproval } from './approvals';
import { signDecisions } from './decision-signature';
import { checkKeys, invalidOption } from './option-checks';
import { type RebuiltRun, rebuildFromJournal, rebuildFromState } from './rebuild-run';
import { type ResolvedOptions, RUN_OPTION_KEYS, resolveOptions, resolveRunId } from './resolve-options';
import { assertSameTools } from './run-manifest';
import { runSegment } from './run-segment';
import { readState } from './run-state';
import { assertSubAgentDigests, assertSubAgentTools, pendingIds, routeSubAgentDecisions } from './sub-agent-pause';
import type { AgentResult, ApprovalDecision, ResumeRunOptions, RunAgentOptions } from './types';

/** Every accepted key of {@link ResumeRunOptions}. */
const RESUME_OPTION_KEYS = [
  // A run's session is journaled with its first segment: a resumed one keeps it.
  // So is its manifest: a resume checks its tools against it.
  ...RUN_OPTION_KEYS.filter(
    (key) => key !== 'prompt' && key !== 'messages' && key !== 'runId' && key !== 'sessionId' && key !== 'manifest',
  ),
  'runId',
  'state',
  'approvals',
  'allowToolChanges',
] as const;

type MissingResumeOption = Exclude<keyof ResumeRunOptions, (typeof RESUME_OPTION_KEYS)[number]>;
const everyResumeOptionListed: [MissingResumeOption] extends [never] ? true : MissingResumeOption = true;
void everyResumeOptionListed;

const DECISION_KEYS = new Set(['approved', 'reason', 'digest', 'by', 'decidedBy']);

function resolveApprovals(value: unknown): Record<string, ApprovalDecision> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    invalidOption('approvals', 'an object of decisions by call id', value);
  for (const [callId, decision] of Object.entries(value)) {
    const object = decision as {
      approved?: unknown;
      reason?: unknown;
      digest?: unknown;
      by?: unknown;
      decidedBy?: unknown;
    } | null;
    const valid =
      typeof decision === 'boolean' ||
      (typeof object === 'object' &&
        object !== null &&
        typeof object.approved === 'boolean' &&
        (object.reason === undefined || (object.approved === false && typeof object.reason === 'string')) &&
        (object.digest === undefined || typeof object.digest === 'string') &&
        (object.by === undefined || (typeof object.by === 'string' && object.by.length <= 256)) &&
        (object.decidedBy === undefined || object.decidedBy === 'person' || object.decidedBy === 'policy') &&
        Object.keys(object).every((key) => DECISION_KEYS.has(key)));
    if (!valid)
      invalidOption(
        `approvals[${JSON.stringify(callId)}]`,
        "true, false, { approved: true, digest?, by?, decidedBy? } or { approved: false, reason?, digest?, by?, decidedBy? } (by: at most 256 characters; decidedBy: 'person' or 'policy')",
        decision,
      );
  }
  return value as Record<string, ApprovalDecision>;
}

/** The `approval_decided` event of a decision given to `resumeRun` (by a person unless it says otherwise). */
function personDecision(callId: string, decision: ApprovalDecision): ApprovalDecidedBody {
  const object = typeof decision === 'object' ? decision : undefined;
  return decidedEvent(callId, {
    decision: decision === true || object?.approved === true ? true : 'denied',
    decidedBy: object?.decidedBy === 'policy' ? 'policy' : 'person',
    ...(object?.by === undefined ? {} : { by: object.by }),
  });
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
    return rebuildFromState(content, options.decisionKey);
  }
  const id = runId ?? content?.runId;
  if (id === undefined) throw new ConfigError("resumeRun with a store needs runId (or the paused run's state).");
  const stored = await store.readRun(id);
  if (!stored || stored.events.length === 0)
    throw new ConfigError(`Unknown run ${JSON.stringify(id)}: the store has no journal for it. Check the runId.`);
  const run = await rebuildFromJournal(id, stored.events, options.output, options.decisionKey);
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
 * `run_end`. Resuming a run that already ended returns its result and emits nothing. Decisions the state
 * or journal kept apply only when their signature verifies with `decisionKey`; others go to `approve` again.
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
  const { state, approvals, runId, allowToolChanges, ...rest } = options;
  if (allowToolChanges !== undefined && typeof allowToolChanges !== 'boolean')
    invalidOption('allowToolChanges', 'a boolean', allowToolChanges);
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
  if (run.manifest && allowToolChanges !== true) assertSameTools(run.state.runId, run.manifest, resolved.registry);
  assertSubAgentTools(run.state.runId, batch, (name) => resolved.registry.get(name) !== undefined);
  // Decisions on calls a paused sub-agent waits on go to the call that runs it (it resumes the sub-agent).
  const routed = batch ? routeSubAgentDecisions(batch.subAgents, batch.subDecisions, decisions) : new Set<string>();
  if (batch) assertSubAgentDigests(batch.subAgents, decisions, routed);
  const decided: ApprovalDecidedBody[] = [];
  const now = Date.now();
  for (const callId of callIds) {
    if (routed.has(callId)) {
      decided.push(personDecision(callId, decisions[callId] as ApprovalDecision));
      continue;
    }
    const call = batch?.asked.has(callId) ? batch.recorded.find((recorded) => recorded.id === callId) : undefined;
    if (!batch || !call)
      throw new ConfigError(
        `Cannot decide call ${JSON.stringify(callId)}: it is not pending in run ${run.state.runId} (pending: ${
          pendingIds(batch)
            .map((pending) => JSON.stringify(pending))
            .join(', ') || 'none'
        }). Nothing was run.`,
      );
    const deadline = batch.deadlines.get(callId);
    if (deadline !== undefined && Date.parse(deadline) <= now && !batch.decisions.has(callId))
      throw new ConfigError(
        `Cannot decide call ${JSON.stringify(callId)}: its deadline passed (${deadline}), so it is no longer pending: resuming without a decision on it applies the deadline. Nothing was run.`,
      );
    const decision = decisions[callId] as ApprovalDecision;
    decided.push(personDecision(callId, decision));
    const named = typeof decision === 'object' ? decision.digest : undefined;
    if (named !== undefined) {
      const { digest } = pendingApproval(batch, callId, run.state.runId);
      if (named !== digest)
        throw new ConfigError(
          `Cannot decide call ${JSON.stringify(callId)}: the decision was made on another pause (it names digest ${JSON.stringify(named)}, the call pending now has ${digest}). Nothing was run; show the pending call again and decide on it.`,
        );
    }
    batch.asked.delete(callId);
    batch.decisions.set(callId, decisionOf(decision, call.name));
  }
  const runStart = {
    model: resolved.model.id,
    ...(resolved.system === undefined ? {} : { system: resolved.system }),
    resumed: true,
    ...(callIds.length > 0 && batch
      ? {
          approvals: decisions,
          approvalsSignature: signDecisions(resolved.decisionKey, {
            kind: 'approvals',
            runId: run.state.runId,
            step: batch.step,
            calls: batch.recorded,
            decisions,
          }),
        }
      : {}),
  };
  // A deadline that passed while no process continued the run decides its calls now, before anything runs.
  if (batch) decided.push(...applyDeadlines(batch, resolved.registry, now));
  const start = {
    runStart,
    firstSequence: run.nextSequence,
    decided,
    ...(run.finished ? { finished: run.finished } : {}),
  };
  return (await runSegment(resolved, run.state, start)) as AgentResult<Output>;
}
