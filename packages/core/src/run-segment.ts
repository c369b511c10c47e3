import type { OwnedEventInput } from '@bridle/events';
import { type ApprovalDecidedBody, ConfigError, type RunEndBody, type RunStartBody } from '@bridle/protocol';
import { errorMessage, redactCredentials } from '@bridle/protocol/internal';
import { signDecisions } from './decision-signature';
import { type EventSink, eventSink } from './event-sink';
import { Journal, JournalError } from './journal';
import type { Ending, LoopState } from './loop-state';
import type { ResolvedOptions } from './resolve-options';
import { RunInbox } from './run-inbox';
import { cancelled, runLoop } from './run-loop';
import { RunOwnership } from './run-ownership';
import { Cancelled, RunScope } from './run-scope';
import { makeState } from './run-state';
import { newSegmentId } from './segment-id';
import { SegmentLink } from './segment-link';
import { subAgentState } from './sub-agent-state';
import type { AgentResult } from './types';

/** How a segment opens: its `run_start` body, the first sequence number, and an ending already known. */
export interface SegmentStart {
  runStart: Omit<RunStartBody, 'type'>;
  firstSequence: number;
  /** A resumed run whose final answer was journaled before the crash: it ends with this, calling nothing. */
  finished?: Ending;
  /** Decisions made as the segment opens (given to `resumeRun`, or by a passed deadline): emitted after `run_start`. */
  decided?: ApprovalDecidedBody[];
}

function resultOf(state: LoopState, ending: Ending): AgentResult {
  const result: AgentResult = {
    status: ending.status,
    messages: state.messages,
    steps: state.steps,
    toolCalls: state.toolCalls,
    runId: state.runId,
    usage: state.usage,
  };
  if (ending.answer !== undefined) result.answer = ending.answer;
  if (ending.error !== undefined) result.error = ending.error;
  if (ending.cancelledBy !== undefined) result.cancelledBy = ending.cancelledBy;
  if ('output' in ending) result.output = ending.output;
  if (state.answeredBy !== undefined) result.model = state.answeredBy;
  if (state.finishReason !== undefined) result.finishReason = state.finishReason;
  return result;
}

/**
 * Runs one segment of a run (a whole run, unless it pauses) to its result: `run_start`, the loop,
 * `run_end`. Never throws, except a `JournalError` when the store cannot append (the run then stops
 * where its journal stops, with no `run_end`, as if its process had died).
 */
export function runSegment(options: ResolvedOptions, state: LoopState, start: SegmentStart): Promise<AgentResult> {
  // Not an async function: each step below is one `then` (an async function's frame and three awaits were a
  // measurable part of a journaled run's garbage). Every throw still becomes a rejection.
  try {
    const given = options.ownership?.lease;
    if (given !== undefined && given.runId !== state.runId) {
      throw new ConfigError(
        `Invalid option ownership.lease: it is the lease of run ${given.runId}, not of run ${state.runId}.`,
      );
    }
    if (!options.store) return journaledSegment(options, state, start, undefined);
    // The lease comes first: a process that cannot own the run journals nothing of it.
    return RunOwnership.take(options.store, state.runId, options.ownership).then((ownership) =>
      ownership === undefined
        ? journaledSegment(options, state, start, undefined)
        : ownedSegment(options, state, start, ownership),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A segment run under its lease, given up when it ends. */
function ownedSegment(
  options: ResolvedOptions,
  state: LoopState,
  start: SegmentStart,
  ownership: RunOwnership,
): Promise<AgentResult> {
  return journaledSegment(options, state, start, ownership).then(
    (result) => ownership.end(true).then(() => result),
    // Stopped mid-run (the journal failed, or the run was taken over): the lease is kept until it expires,
    // so the run is an orphan that a recovering process resumes (or its new owner already has it).
    (error: unknown) =>
      ownership.end(false).then(() => {
        throw error;
      }),
  );
}

async function journaledSegment(
  options: ResolvedOptions,
  state: LoopState,
  start: SegmentStart,
  ownership: RunOwnership | undefined,
): Promise<AgentResult> {
  const journal = options.store ? new Journal(options.store, state.runId, ownership) : undefined;
  const emitter = eventSink(
    {
      runId: state.runId,
      onEvent: options.onEvent,
      onObserverError: options.onObserverError,
      firstSequence: start.firstSequence,
    },
    journal,
  );
  emitter.emitOwned(runStartEvent(start, journal !== undefined));
  if (start.decided) for (const decided of start.decided) emitter.emit(decided);
  const { channels } = options;
  const scope = new RunScope({
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    cancellable: channels.length > 0,
  });
  const inbox = new RunInbox(scope);
  // Listening before run_start is journaled: once the store says the run is running, a signal reaches it. Awaited
  // even without a channel: the first model call never starts in the same turn as runAgent's call (a caller that
  // aborts right after calling it gets a run that called nothing, as before).
  const stopListening = await inbox.listen(channels, state.runId);
  const link = new SegmentLink(options, state, scope, emitter);
  let ending: Ending;
  try {
    if (journal) await journal.flush();
    ending = start.finished ?? (await runLoop({ options, scope, emitter, journal, state, link, inbox }));
  } catch (error) {
    if (JournalError.isInstance(error)) throw error;
    if (error instanceof Cancelled) ending = cancelled(error.reason, options.timeoutMs);
    else if (scope.reason) ending = cancelled(scope.reason, options.timeoutMs);
    // Not expected (every failure is data by now); still, a run that started always resolves.
    else
      ending = { status: 'model_error', error: `Internal error in the agent loop: ${errorMessage(error, 'unknown')}` };
  } finally {
    stopListening();
    scope.dispose();
  }
  if (ending.status === 'aborted' && inbox.cancelledBy !== undefined)
    ending = { ...ending, cancelledBy: inbox.cancelledBy, error: `The run was cancelled by ${inbox.cancelledBy}.` };
  // Input that came after the last step boundary of a paused run waits in the journal for its resume.
  if (ending.paused) inbox.keep(emitter);
  const result = resultOf(state, ending);
  if (ending.paused) pauseResult(result, ending.paused, { options, state, start, emitter, journaled: !!journal });
  emitter.emitOwned(runEndEvent(result));
  if (journal) await journal.flush();
  return result;
}

/**
 * A segment's `run_start`. Its start is unique when journaled: two processes that open the same segment at once
 * (a double resume, a reused runId) then conflict in the store before either runs a call, instead of
 * journaling byte-identical events that the store takes as one retried append. The model id is journaled,
 * observed and sent to OpenTelemetry: an `openai-compatible:` URL's user info and query string (where keys
 * travel) stay out of it.
 */
function runStartEvent(start: SegmentStart, journaled: boolean): RunStartBody & OwnedEventInput {
  // The stamp's keys first (written by emitOwned), then the body as it was given.
  const event = Object.assign(
    { type: 'run_start', runId: '', sequence: 0, timestamp: '' },
    start.runStart,
  ) as RunStartBody & OwnedEventInput;
  event.model = redactCredentials(start.runStart.model);
  if (journaled) event.segmentId = newSegmentId();
  return event;
}

/** A segment's `run_end`, from its result (fields written one by one, in the journal's order: no spreads). */
function runEndEvent(result: AgentResult): OwnedEventInput {
  const event: Omit<RunEndBody, 'durationMs'> & OwnedEventInput = {
    type: 'run_end',
    // The stamp's keys, written by emitOwned.
    runId: '',
    sequence: 0,
    timestamp: '',
    status: result.status,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: { ...result.usage },
  };
  if (result.error !== undefined) event.error = result.error;
  if (result.cancelledBy !== undefined) event.cancelledBy = result.cancelledBy;
  if (result.answer !== undefined) event.answer = result.answer;
  if (result.finishReason !== undefined) event.finishReason = result.finishReason;
  if (result.state !== undefined) {
    event.state = result.state;
    event.pendingApprovals = result.pendingApprovals;
  }
  return event;
}

/** Adds a paused segment's pending approvals and resumable `state` to its result. */
function pauseResult(
  result: AgentResult,
  paused: NonNullable<Ending['paused']>,
  segment: {
    options: ResolvedOptions;
    state: LoopState;
    start: SegmentStart;
    emitter: EventSink;
    journaled: boolean;
  },
): void {
  const { options, state, start, emitter, journaled } = segment;
  const { batch } = paused;
  result.pendingApprovals = paused.pending;
  // The run_end about to be emitted takes the next number; the resumed segment starts after it.
  const nextSequence = 'nextSequence' in emitter ? (emitter.nextSequence as number) + 1 : start.firstSequence;
  result.state = makeState({
    version: 1,
    runId: state.runId,
    nextSequence,
    steps: state.steps,
    toolCalls: state.toolCalls,
    usage: state.usage,
    ...(state.outputProblem === undefined ? {} : { outputProblem: state.outputProblem }),
    journaled,
    ...(journaled ? {} : { messages: state.messages }),
    batch: {
      step: batch.step,
      content: batch.content,
      ...(batch.providerData === undefined ? {} : { providerData: batch.providerData }),
      calls: batch.recorded,
      decisions: Object.fromEntries(batch.decisions),
      asked: [...batch.asked],
      ...(batch.deadlines.size === 0 ? {} : { deadlines: Object.fromEntries(batch.deadlines) }),
      ...subAgentState(batch, journaled),
      decisionsSignature: signDecisions(options.decisionKey, {
        kind: 'state',
        runId: state.runId,
        step: batch.step,
        calls: batch.recorded,
        decisions: Object.fromEntries(batch.decisions),
      }),
    },
  });
}
