import { randomUUID } from 'node:crypto';
import {
  BridleError,
  ConfigError,
  type RunEvent,
  type RunLease,
  type RunSignal,
  type RunSignalChannel,
  type Store,
  type StoredRun,
} from '@bridle/protocol';
import { rebuildFromJournal } from './rebuild-run';
import { RunEndedError } from './run-ended-error';
import { ownerIsGone } from './run-ownership';
import { newSegmentId } from './segment-id';

/** Options of {@link steerRun} and {@link cancelRun}: where the run is, and who acts. */
export interface RunSignalOptions {
  /** The store the run journals to (the same database as the process that runs it). */
  store: Store;
  runId: string;
  /** Who acts, journaled with it (`input.by`, `run_end.cancelledBy`): e.g. `api`, `cli:alice`. 1 to 200 characters. */
  by?: string;
  /** More ways to reach the run besides its store, e.g. a queue's `RunQueue` (Redis pub/sub) for queued runs. */
  channels?: readonly RunSignalChannel[];
}

/** Options of {@link steerRun}. */
export interface SteerRunOptions extends RunSignalOptions {
  /** The user message to add. */
  content: string;
}

/** How a signal reached its run. */
export interface SignalOutcome {
  runId: string;
  /**
   * `signal`: the run is running, and its process was sent the signal (it acts at its next step boundary, and
   * its event stream acknowledges it). `journal`: the run was paused, or its process died (lease expired); the
   * journal now holds it (an `input` waiting for the resume, or the cancelled run's end).
   */
  delivery: 'signal' | 'journal';
}

const MAX_INPUT_CHARS = 100_000;
// A journal append that lost a race (a resume began at once) is decided again on the fresh status.
const ATTEMPTS = 3;

function checkOptions(options: RunSignalOptions): void {
  if (typeof options?.store?.readRun !== 'function')
    throw new ConfigError('steerRun and cancelRun need store: the Store the run journals to (openStore(url)).');
  if (typeof options.runId !== 'string' || options.runId === '')
    throw new ConfigError(`Invalid option runId: expected a run id, got ${JSON.stringify(options.runId)}.`);
  const { by } = options;
  if (by !== undefined && (typeof by !== 'string' || by === '' || by.length > 200))
    throw new ConfigError(`Invalid option by: expected a string of 1 to 200 characters, got ${JSON.stringify(by)}.`);
}

async function readRunOrThrow(store: Store, runId: string): Promise<StoredRun> {
  const run = await store.readRun(runId);
  if (!run || run.events.length === 0)
    throw new ConfigError(`Unknown run ${JSON.stringify(runId)}: the store has no journal for it. Check the runId.`);
  return run;
}

/** The channels that can reach a running run: the given ones, then the store when it carries signals. */
function channelsOf(options: RunSignalOptions): RunSignalChannel[] {
  const channels = [...(options.channels ?? [])];
  const { store } = options;
  if (typeof store.sendRunSignal === 'function' && typeof store.listenRunSignals === 'function')
    channels.push(store as RunSignalChannel);
  if (channels.length === 0)
    throw new ConfigError(
      `Cannot reach run ${options.runId}: its store carries no signals (no sendRunSignal) and no channels were given. Use a store of openStore() (memory, SQLite, Postgres), or pass the queue's channel.`,
    );
  return channels;
}

async function sendToAll(options: RunSignalOptions, signal: RunSignal): Promise<void> {
  // The run hears one signal once, whichever channels carry it (by its id).
  await Promise.all(channelsOf(options).map((channel) => channel.sendRunSignal(options.runId, signal)));
}

function isConflict(error: unknown): boolean {
  return BridleError.isInstance(error) && error.code === 'store_conflict';
}

/** Appends `bodies` after the journal's last event, stamped as the run's own events (fenced with `token`). */
async function appendAfter(
  store: Store,
  run: StoredRun,
  bodies: Record<string, unknown>[],
  token?: number,
): Promise<void> {
  const last = run.events[run.events.length - 1] as RunEvent;
  const timestamp = new Date().toISOString();
  const events = bodies.map(
    (body, index) => ({ ...body, runId: run.runId, sequence: last.sequence + 1 + index, timestamp }) as RunEvent,
  );
  await store.appendEvents(run.runId, events, token === undefined ? undefined : { fencingToken: token });
}

/**
 * For a `running` run whose owner stopped renewing its lease (its process died, or is stopped): a lease whose
 * fencing token to journal with, or undefined when a live owner holds the run (or the store keeps no leases), which
 * then hears signals; also when the run never had a lease, whose process journals without one. The lease is taken for 1 ms: it fences the old owner (a stopped process that wakes
 * writes nothing after this) and lapses at once, so the run stays an orphan that recovery or `bridle resume`
 * continues, and that continuation reads what was journaled here.
 */
async function orphanLease(store: Store, runId: string, by: string | undefined): Promise<RunLease | undefined> {
  if (typeof store.acquireLease !== 'function') return undefined;
  const owner = `signal:${by ?? 'unnamed'}`;
  let taken = await store.acquireLease(runId, { owner, leaseMs: 1 });
  // Its owner was a process of this machine that no longer exists (a killed `bridle run`): as good as expired.
  if (!taken.acquired && ownerIsGone(taken.owner))
    taken = await store.acquireLease(runId, { owner, leaseMs: 1, force: true });
  if (!taken.acquired) return undefined;
  if (taken.lease.token > 1) return taken.lease;
  // The first lease the run ever had: whoever runs it journals without one (a store handle without leases).
  // Given back at once, so that the run is nobody's orphan; that process hears the signal.
  await store.releaseLease?.(taken.lease);
  return undefined;
}

/** Gives a lease taken here back (the run then has no owner); nothing when none, or when it was taken since. */
async function giveBack(store: Store, lease: RunLease | undefined): Promise<void> {
  if (lease !== undefined) await store.releaseLease?.(lease).catch(() => {});
}

/**
 * Steers a run wherever it runs: `content` becomes a user message at the run's next step boundary (before
 * its next model call, never inside a batch of tool calls), journaled as an `input` event that its event
 * stream shows. A running run is sent the signal through its store (Postgres `LISTEN/NOTIFY`, SQLite's
 * signals table, memory in process) and `channels`; a paused run (`awaiting_approval`) keeps the input in its
 * journal for its resume. Rejects with `RunEndedError` (code `run_ended`) for a run that ended, and with
 * `ConfigError` for bad options or an unknown run. A run whose process died (still `running` in the store,
 * its lease expired) keeps the input in its journal too: whoever resumes it (recovery, `bridle resume`)
 * delivers it at its first step boundary, and the dead owner, should it wake, is fenced.
 */
export async function steerRun(options: SteerRunOptions): Promise<SignalOutcome> {
  checkOptions(options);
  const { content } = options;
  if (typeof content !== 'string' || content === '' || content.length > MAX_INPUT_CHARS)
    throw new ConfigError(
      `Invalid option content: expected the user message as a string of 1 to ${MAX_INPUT_CHARS} characters, got ${typeof content === 'string' ? `${content.length} characters` : JSON.stringify(content)}.`,
    );
  const by = options.by === undefined ? {} : { by: options.by };
  for (let attempt = 1; ; attempt++) {
    const run = await readRunOrThrow(options.store, options.runId);
    let lease: RunLease | undefined;
    if (run.status === 'running') {
      lease = await orphanLease(options.store, run.runId, options.by);
      if (lease === undefined) {
        await sendToAll(options, { type: 'input', id: randomUUID(), content, ...by });
        return { runId: run.runId, delivery: 'signal' };
      }
    } else if (run.status !== 'awaiting_approval') throw new RunEndedError(run.runId, run.status, 'steer');
    try {
      // An orphan's lease is left to lapse (1 ms): the run stays an orphan for recovery.
      await appendAfter(options.store, run, [{ type: 'input', content, ...by }], lease?.token);
      return { runId: run.runId, delivery: 'journal' };
    } catch (error) {
      await giveBack(options.store, lease);
      if (!isConflict(error) || attempt >= ATTEMPTS) throw error;
    }
  }
}

/**
 * Cancels a run wherever it runs: a running run stops as its own `signal` would stop it (calls under way are
 * aborted, the batch is answered as cut) and ends `aborted` with `cancelledBy` in its `run_end` and result. A
 * paused run is ended in its journal at once (a segment that only ends it: status `aborted`, its pending
 * calls answered as cut); so is a run whose process died (its lease expired), which then is no orphan to recover.
 * Rejects like {@link steerRun}.
 */
export async function cancelRun(options: RunSignalOptions): Promise<SignalOutcome> {
  checkOptions(options);
  const by = options.by ?? 'unnamed';
  for (let attempt = 1; ; attempt++) {
    const run = await readRunOrThrow(options.store, options.runId);
    let lease: RunLease | undefined;
    if (run.status === 'running') {
      lease = await orphanLease(options.store, run.runId, by);
      if (lease === undefined) {
        await sendToAll(options, { type: 'cancel', id: randomUUID(), by });
        return { runId: run.runId, delivery: 'signal' };
      }
    } else if (run.status !== 'awaiting_approval') throw new RunEndedError(run.runId, run.status, 'cancel');
    try {
      await appendAfter(options.store, run, await cancelledSegment(run, by), lease?.token);
      // Ended: nobody owns it any more.
      await giveBack(options.store, lease);
      return { runId: run.runId, delivery: 'journal' };
    } catch (error) {
      await giveBack(options.store, lease);
      if (!isConflict(error) || attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The events that end a paused run as cancelled: a resumed segment's `run_start` and its `run_end`. */
async function cancelledSegment(run: StoredRun, by: string): Promise<Record<string, unknown>[]> {
  // The key only verifies journaled decisions, which an ending does not use.
  const rebuilt = await rebuildFromJournal(run.runId, run.events, undefined, new Uint8Array(32));
  const first = run.events[0] as RunEvent;
  const model = first.type === 'run_start' ? first.model : 'unknown';
  const cut = rebuilt.state.carried?.recorded.length ?? 0;
  return [
    { type: 'run_start', model, resumed: true, segmentId: newSegmentId() },
    {
      type: 'run_end',
      status: 'aborted',
      steps: rebuilt.state.steps,
      toolCalls: rebuilt.state.toolCalls + cut,
      usage: { ...rebuilt.state.usage },
      durationMs: 0,
      error: `The run was cancelled by ${by}.`,
      cancelledBy: by,
    },
  ];
}
