import { BridleError, type RunEvent, type Store } from '@bridle/protocol';
import type { Redis } from 'ioredis';

/** Where {@link followRun} reads a run from. */
export interface FollowSource {
  /** The run's event stream. */
  key: string;
  runId: string;
  /** The state of the run's job (BullMQ's names; `unknown` when the queue has no such job). */
  jobState(): Promise<string>;
  /** The job's failure, for the error of a run that never started. */
  failedReason(): Promise<string | undefined>;
  /** The journal, read when the stream ends without the run's `run_end`. */
  store: Store | undefined;
  signal: AbortSignal | undefined;
  /** How long one read waits for new events before the job's state is checked, in ms. */
  blockMs: number;
  /** Events of the run before this sequence are skipped (a resumed segment's first sequence). */
  fromSequence?: number;
}

// States after which no worker publishes to the run's stream any more.
const SETTLED = new Set(['completed', 'failed', 'unknown']);

type StreamReply = [string, [string, string[]][]][] | null;

/**
 * Reads a run's events from its Redis stream, oldest first, waiting for new ones, until the run's `run_end`
 * (or `signal`). Events whose sequence was already delivered (a segment re-emitted after a worker died)
 * are skipped, so sequences keep increasing. When the stream has nothing more and the run's job is settled
 * (completed, failed, or unknown to the queue: the stream expired or was never written), the rest comes from
 * the store's journal; without a store, or when the journal does not end the run either, it throws a
 * `BridleError` (code `run_stream_gone`) saying why, instead of waiting for ever.
 */
export async function* followRun(redis: Redis, source: FollowSource): AsyncGenerator<RunEvent> {
  const { key, runId, signal } = source;
  let lastId = '0';
  const delivered = new Map<string, number>();
  if (source.fromSequence !== undefined) delivered.set(runId, source.fromSequence - 1);
  let settled: string | undefined;
  while (!signal?.aborted) {
    // Once the job settled, everything its worker published is in the stream: read it without waiting.
    const wait = settled === undefined ? ['BLOCK', source.blockMs] : [];
    const reply = (await redis.xread(
      'COUNT',
      500,
      ...(wait as ['BLOCK', number]),
      'STREAMS',
      key,
      lastId,
    )) as StreamReply;
    let read = false;
    for (const [, entries] of reply ?? []) {
      for (const [id, fields] of entries) {
        read = true;
        lastId = id;
        const text = fields[fields.indexOf('event') + 1];
        if (text === undefined) continue;
        const event = JSON.parse(text) as RunEvent;
        const last = delivered.get(event.runId);
        if (last !== undefined && event.sequence <= last) continue;
        delivered.set(event.runId, event.sequence);
        yield event;
        if (event.type === 'run_end' && event.runId === runId) return;
      }
    }
    if (read) continue;
    if (settled !== undefined) break;
    const state = await source.jobState();
    if (SETTLED.has(state)) settled = state;
  }
  if (signal?.aborted || settled === undefined) return;
  yield* fromJournal(source, settled, delivered.get(runId) ?? -1);
}

async function* fromJournal(source: FollowSource, state: string, after: number): AsyncGenerator<RunEvent> {
  const { runId, store } = source;
  const job =
    state === 'unknown'
      ? 'the queue has no job for it (never enqueued, or removed after it finished)'
      : state === 'failed'
        ? `its job failed (${(await source.failedReason()) ?? 'no reason given'})`
        : 'its job completed';
  const stored = await store?.readRun(runId);
  if (!store)
    throw new BridleError(
      'run_stream_gone',
      `The event stream of run ${runId} ended without its run_end: ${job}, and a stream is kept 24 h after its last event. Read the run from the store (store.readRun), or give openRunQueue the store so follow() reads it there.`,
    );
  if (!stored || stored.events.length === 0)
    throw new BridleError('run_stream_gone', `Run ${runId} has no events in the stream or in the store: ${job}.`);
  for (const event of stored.events) if (event.sequence > after) yield event;
  if (stored.status === 'running')
    throw new BridleError(
      'run_stream_gone',
      `Run ${runId} did not end: ${job}, and its journal stops at event ${stored.events.at(-1)?.sequence} without a run_end (resume it with resumeRun, or enqueue its runId again).`,
    );
}
