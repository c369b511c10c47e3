import { createHash } from 'node:crypto';
import { newRunId } from '@bridle/core';
import { ConfigError, describeValue, type Message } from '@bridle/protocol';

/**
 * What a queued run is: its input, the model and skill to run it with, its limits. It never carries a
 * key or an endpoint of its own choosing: the worker holds the credentials and decides what it accepts.
 */
export interface RunJobSpec {
  /** A new conversation with this user message; exactly one of `prompt` and `messages`. */
  prompt?: string;
  /** A transcript to continue; exactly one of `prompt` and `messages`. */
  messages?: Message[];
  /** The model id (e.g. `openai:gpt-4o-mini`); the worker refuses ids it was not set up for. */
  model: string;
  /** A skill the worker offers; default: the worker's own. */
  skill?: string;
  /** Replaces the worker's system prompt. */
  system?: string;
  maxSteps?: number;
  maxToolCalls?: number;
  /** Whole-run deadline in ms (for each attempt of a job). */
  timeoutMs?: number;
  /**
   * The run's budget in US dollars (status `budget_limit` when reached). A worker with a budget of its own
   * applies the smaller of the two: a job can tighten a worker's budget, never loosen it.
   */
  maxCostUsd?: number;
  /** Stream model output (`text_delta` events reach followers). */
  stream?: boolean;
  /** Continue this session of the worker's store (its messages come first; the session is saved after). */
  sessionId?: string;
  /** The run's id in the store (default: a new UUID). Jobs with the same `runId` continue the same journal. */
  runId?: string;
  /**
   * Decisions on the pending calls of paused run `runId` (`{ <callId>: true | false | { approved, digest } }`,
   * as `resumeRun` takes them; `digest` names the pending call a decision was made on): the job resumes that
   * run from the store instead of starting one, so it has no `prompt` or `messages`. Its job id is the run id
   * and a digest of the decisions: the same decisions enqueued again add nothing. A worker refuses it (the
   * job fails, naming why) when those calls are no longer pending, or a digest is not the pending call's.
   */
  approvals?: Record<string, JobDecision>;
  /**
   * The tenant the run belongs to (a server's API keys): journaled in each `run_start` the job writes, so
   * the server shows the run only to that tenant. Absent: tenant `default`.
   */
  tenant?: string;
  /** Who started the run, or decided its approvals: an API key's name, journaled in the `run_start`. */
  by?: string;
  /**
   * The tenant's quotas (a server with named keys sets them): the worker checks each model call of the run
   * against them before the call, reserving its estimate in the counters every server and worker of the
   * deployment share (Redis, under the queue's prefix), and reconciles after. `{}` counts without limits.
   */
  quotas?: JobQuotas;
}

/** The quotas a job's run is held to (see `quotaGate` of @bridle/core); each absent: none. */
export interface JobQuotas {
  tokensPerDay?: number;
  costUsdPerDay?: number;
  costUsdPerRun?: number;
}

/**
 * A decision in an approvals job: `true` / `false`, or `{ approved, digest }` bound to one pending call; `by`
 * names who decided (journaled in `approval_decided`, at most 256 characters).
 */
export type JobDecision = boolean | { approved: boolean; digest?: string; by?: string };

/** A job's data in Redis: the spec with its run id fixed, and a version for workers of other releases. */
export interface RunJobData extends RunJobSpec {
  version: 1;
  runId: string;
}

/** Default largest job payload (the JSON of the job's data), in bytes. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

const ID = /^[A-Za-z0-9_.-]{1,128}$/;
const KEYS = new Set([
  'prompt',
  'messages',
  'model',
  'skill',
  'system',
  'maxSteps',
  'maxToolCalls',
  'timeoutMs',
  'maxCostUsd',
  'stream',
  'sessionId',
  'runId',
  'approvals',
  'tenant',
  'by',
  'quotas',
]);
const QUOTA_KEYS = ['tokensPerDay', 'costUsdPerDay', 'costUsdPerRun'];

function checkQuotas(quotas: unknown): void {
  const valid =
    typeof quotas === 'object' &&
    quotas !== null &&
    !Array.isArray(quotas) &&
    Object.entries(quotas).every(
      ([key, value]) => QUOTA_KEYS.includes(key) && typeof value === 'number' && Number.isFinite(value) && value >= 0,
    );
  if (!valid) fail('quotas', `an object of ${QUOTA_KEYS.join(', ')} (non-negative numbers)`, quotas);
}

function fail(field: string, expected: string, value: unknown): never {
  throw new ConfigError(`Invalid run job: ${field} must be ${expected}, got ${describeValue(value)}.`);
}

function positive(spec: RunJobSpec, key: 'maxSteps' | 'maxToolCalls' | 'timeoutMs', least: number): void {
  const value = spec[key];
  if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least))
    fail(key, least === 0 ? 'a non-negative integer' : 'a positive integer', value);
}

/** Most decisions in one approvals job (as `POST /api/runs/:id/approvals` takes). */
const MAX_DECISIONS = 1000;

function checkApprovals(approvals: unknown): void {
  const entries =
    typeof approvals === 'object' && approvals !== null && !Array.isArray(approvals) ? Object.entries(approvals) : [];
  if (entries.length === 0 || entries.length > MAX_DECISIONS || !entries.every(([, decision]) => isDecision(decision)))
    fail(
      'approvals',
      `an object of 1 to ${MAX_DECISIONS} decisions by call id (true, false or { approved, digest?, by? })`,
      approvals,
    );
}

function isDecision(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { approved, digest, by, ...rest } = value as { approved?: unknown; digest?: unknown; by?: unknown };
  return (
    typeof approved === 'boolean' &&
    (digest === undefined || typeof digest === 'string') &&
    (by === undefined || (typeof by === 'string' && by.length <= 256)) &&
    Object.keys(rest).length === 0
  );
}

/**
 * The job id of a job: its run id, or for an approvals job the run id and a digest of its decisions (in call-id
 * order), so that each decision of a paused run is one job and the same decisions enqueued twice are one.
 */
export function jobIdOf(data: RunJobData): string {
  if (data.approvals === undefined) return data.runId;
  const decisions = Object.entries(data.approvals).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = createHash('sha256').update(JSON.stringify(decisions)).digest('hex').slice(0, 16);
  return `${data.runId}.approvals-${digest}`;
}

/** Checks an id usable as a BullMQ job id and a run id: 1 to 200 of `A-Z a-z 0-9 _ . -`, not all digits. */
export function checkId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value) || /^\d+$/.test(value))
    fail(field, "1 to 128 letters, digits, '_', '.' or '-' (not only digits)", value);
  return value;
}

/**
 * Validates a spec and turns it into job data; throws `ConfigError` naming the field, or the payload's
 * size and `maxPayloadBytes` when its JSON is larger (nothing is enqueued then).
 */
export function toJobData(spec: RunJobSpec, maxPayloadBytes: number): RunJobData {
  return toSizedJobData(spec, maxPayloadBytes).data;
}

/** {@link toJobData}, with the size of the data's JSON in bytes. */
export function toSizedJobData(spec: RunJobSpec, maxPayloadBytes: number): { data: RunJobData; bytes: number } {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) fail('the job', 'an object', spec);
  for (const key of Object.keys(spec)) if (!KEYS.has(key)) fail(`"${key}"`, `one of ${[...KEYS].join(', ')}`, key);
  const hasPrompt = spec.prompt !== undefined;
  if (spec.approvals !== undefined) {
    checkApprovals(spec.approvals);
    if (hasPrompt || spec.messages !== undefined)
      fail(
        'the input',
        "absent with approvals (the paused run's transcript is in its journal)",
        spec.prompt ?? spec.messages,
      );
    if (spec.runId === undefined) fail('runId', 'the id of the paused run the approvals decide', spec.runId);
  } else {
    if (hasPrompt === (spec.messages !== undefined))
      fail('the input', 'exactly one of prompt (a string) or messages (an array)', spec.prompt ?? spec.messages);
    if (hasPrompt && typeof spec.prompt !== 'string') fail('prompt', 'a string', spec.prompt);
    if (!hasPrompt && !Array.isArray(spec.messages)) fail('messages', 'an array of messages', spec.messages);
  }
  if (typeof spec.model !== 'string' || spec.model.trim() === '') fail('model', 'a model id string', spec.model);
  for (const key of ['tenant', 'by'] as const)
    if (
      spec[key] !== undefined &&
      (typeof spec[key] !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/.test(spec[key]))
    )
      fail(key, "1 to 64 letters, digits, '.', '_', ':' or '-'", spec[key]);
  if (spec.quotas !== undefined) checkQuotas(spec.quotas);
  for (const key of ['skill', 'system', 'sessionId'] as const)
    if (spec[key] !== undefined && typeof spec[key] !== 'string') fail(key, 'a string', spec[key]);
  if (spec.stream !== undefined && typeof spec.stream !== 'boolean') fail('stream', 'a boolean', spec.stream);
  positive(spec, 'maxSteps', 1);
  positive(spec, 'maxToolCalls', 0);
  positive(spec, 'timeoutMs', 1);
  const cost = spec.maxCostUsd;
  if (cost !== undefined && (typeof cost !== 'number' || !Number.isFinite(cost) || cost <= 0))
    fail('maxCostUsd', 'a positive number of US dollars', cost);
  const runId = spec.runId === undefined ? newRunId() : checkId('runId', spec.runId);
  const data: RunJobData = { ...spec, version: 1, runId };
  // A worker reading a job (no limit) need not serialise it again.
  const bytes = maxPayloadBytes === Number.POSITIVE_INFINITY ? 0 : Buffer.byteLength(JSON.stringify(data));
  if (bytes > maxPayloadBytes)
    throw new ConfigError(
      `Run job for run ${runId} is ${bytes} bytes, over the queue's limit of ${maxPayloadBytes} bytes (maxPayloadBytes): shorten the prompt or transcript, or raise maxPayloadBytes on the producer.`,
    );
  return { data, bytes };
}

/** Reads a job's data on the worker side; throws an `Error` naming what is wrong (a job from another release). */
export function readJobData(data: unknown): RunJobData {
  const value = data as Partial<RunJobData> | null;
  if (typeof value !== 'object' || value === null || value.version !== 1)
    throw new Error(
      `job data of version ${describeValue(value?.version)} is not understood by this worker (it reads version 1): run workers of the producer's release.`,
    );
  const { version: _version, ...spec } = value as RunJobData;
  return { ...toJobData(spec, Number.POSITIVE_INFINITY), version: 1 };
}
