import { describeValue, type Usage } from '@bridle/protocol';
import { checkId, checkTime } from './check-id';
import { jsonCopy } from './json-copy';
import { KeptEvent } from './kept-event';
import { MAX_SEQUENCE, type StoreLimits } from './limits';
import { promptOf } from './run-title';
import { StoreError } from './store-error';

/** An event checked and encoded for the journal. */
export interface PreparedEvent {
  sequence: number;
  type: string;
  /** The event's JSON text, as stored and as compared for duplicates. */
  readonly json: string;
  /** The event's `timestamp`, canonical ISO 8601 UTC. */
  time: string;
  /** `run_start`: the model id and session id. */
  model?: string;
  sessionId?: string;
  /** `run_start`: the tenant. */
  tenant?: string;
  /** `run_end`: the status. */
  status?: string;
  /** `run_end`: its totals, where the event carries them as numbers (a usage object as it is). */
  totals?: RunTotals;
}

/** What a `run_end` tells of the run as a whole (the summary fields of `listRuns`). */
export interface RunTotals {
  steps?: number;
  toolCalls?: number;
  usage?: Usage;
  durationMs?: number;
}

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function totalsOf(event: { [key: string]: unknown }): RunTotals {
  const totals: RunTotals = {};
  const steps = number(event.steps);
  const toolCalls = number(event.toolCalls);
  const durationMs = number(event.durationMs);
  if (steps !== undefined) totals.steps = steps;
  if (toolCalls !== undefined) totals.toolCalls = toolCalls;
  if (durationMs !== undefined) totals.durationMs = durationMs;
  const usage = event.usage as Usage | undefined;
  if (typeof usage === 'object' && usage !== null && !Array.isArray(usage)) totals.usage = usage;
  return totals;
}

/** The event's JSON text, checked against `maxEventChars`; throws `StoreError` (`invalid_input`) otherwise. */
function encode(runId: string, index: number, event: { sequence?: unknown }, limits: StoreLimits): string {
  const { sequence } = event;
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw invalid(runId, index, `(sequence ${sequence}) is not JSON: ${(error as Error).message}`);
  }
  if (json.length > limits.maxEventChars) {
    throw invalid(
      runId,
      index,
      `(sequence ${sequence}) is ${json.length} characters of JSON, over the limit of ${limits.maxEventChars} (maxEventChars)`,
    );
  }
  return json;
}

function invalid(runId: string, index: number, why: string): StoreError {
  return new StoreError('invalid_input', `appendEvents(${JSON.stringify(runId)}): event ${index} ${why}`);
}

/**
 * Checks a batch for `appendEvents` and encodes it: every event a plain object of this run (`runId`), with a
 * `type`, an integer `sequence` strictly increasing through the batch, a `timestamp`, JSON-encodable and
 * within `maxEventChars`; `run_start` with a string `model`, `run_end` with a string `status`.
 * Throws `StoreError` (`invalid_input`) naming the event and the rule; nothing is written then.
 * With `keep` (the `memory:` store) each event is a {@link KeptEvent}: a copy of it, encoded only when asked.
 */
export function prepareEvents(runId: string, events: unknown, limits: StoreLimits, keep?: false): PreparedEvent[];
export function prepareEvents(runId: string, events: unknown, limits: StoreLimits, keep: true): KeptEvent[];
export function prepareEvents(runId: string, events: unknown, limits: StoreLimits, keep = false): PreparedEvent[] {
  checkId(runId, 'appendEvents: runId');
  if (!Array.isArray(events)) {
    throw new StoreError(
      'invalid_input',
      `appendEvents(${JSON.stringify(runId)}): events must be an array, got ${describeValue(events)}`,
    );
  }
  // At its exact size (a batch has a few events; an array grown by push has room for 17).
  const prepared = new Array<PreparedEvent>(events.length);
  let previous = -1;
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as { [key: string]: unknown } | null;
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      throw invalid(runId, index, `must be an object, got ${describeValue(event)}`);
    }
    if (event.runId !== runId) {
      throw invalid(
        runId,
        index,
        `belongs to run ${describeValue(event.runId)}: append each run's events under its own runId`,
      );
    }
    const { sequence, type } = event;
    if (typeof sequence !== 'number' || !Number.isInteger(sequence) || sequence < 0 || sequence > MAX_SEQUENCE) {
      throw invalid(
        runId,
        index,
        `needs an integer sequence from 0 to ${MAX_SEQUENCE}, got ${describeValue(sequence)}`,
      );
    }
    if (sequence <= previous) {
      throw invalid(
        runId,
        index,
        `has sequence ${sequence} after ${previous}: a batch must be in strictly increasing sequence order`,
      );
    }
    previous = sequence;
    if (typeof type !== 'string' || type === '' || type.length > 64) {
      throw invalid(runId, index, `needs a type (a string of 1 to 64 characters), got ${describeValue(type)}`);
    }
    let time: string;
    try {
      time = checkTime(event.timestamp, 'timestamp');
    } catch (error) {
      throw invalid(runId, index, `(sequence ${sequence}) ${(error as Error).message}`);
    }
    let entry: PreparedEvent;
    if (keep) {
      const copy = jsonCopy(event, limits.maxEventChars);
      entry =
        copy !== undefined
          ? new KeptEvent(sequence, type, time, copy)
          : new KeptEvent(sequence, type, time, undefined, encode(runId, index, event, limits));
    } else {
      entry = { sequence, type, json: encode(runId, index, event, limits), time };
    }
    if (type === 'run_start') {
      const { model, sessionId, tenant } = event as { model?: unknown; sessionId?: unknown; tenant?: unknown };
      if (typeof model !== 'string')
        throw invalid(runId, index, `(run_start) needs a string model, got ${describeValue(model)}`);
      if (sessionId !== undefined && typeof sessionId !== 'string') {
        throw invalid(runId, index, `(run_start) has a sessionId that is not a string: ${describeValue(sessionId)}`);
      }
      if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
        throw invalid(
          runId,
          index,
          `(run_start) has a tenant that is not a non-empty string: ${describeValue(tenant)}`,
        );
      }
      entry.model = model;
      if (sessionId !== undefined) entry.sessionId = sessionId;
      if (tenant !== undefined) entry.tenant = tenant;
      // A copied event is plain data: what its JSON says of the prompt, the event itself says.
      if (entry instanceof KeptEvent && entry.kept !== undefined) entry.prompt = promptOf(event);
    } else if (type === 'run_end') {
      const { status } = event as { status?: unknown };
      if (typeof status !== 'string' || status === '') {
        throw invalid(runId, index, `(run_end) needs a non-empty string status, got ${describeValue(status)}`);
      }
      entry.status = status;
      entry.totals = totalsOf(event);
    }
    prepared[index] = entry;
  }
  return prepared;
}
