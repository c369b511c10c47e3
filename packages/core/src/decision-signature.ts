import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ToolCall } from '@bridle/protocol';
import { canonicalJson } from '@bridle/protocol/internal';

/** What a signature covers: the decisions of one paused batch of one run, with the calls they decide. */
export interface DecisionSubject {
  /** Where the decisions are kept: a paused run's `state`, or a resumed segment's `run_start.approvals`. */
  kind: 'state' | 'approvals';
  runId: string;
  /** The step of the batch the calls belong to. */
  step: number;
  /** The batch's calls (only the decided ones are covered). */
  calls: readonly ToolCall[];
  /** The decisions by call id, as they are kept. */
  decisions: Readonly<Record<string, unknown>>;
}

const PREFIX = 'hmac-sha256:';

/** The signed text: each decision with the name and arguments of the call it decides, in call order. */
function signedText(subject: DecisionSubject): string {
  const decided = subject.calls
    .filter((call) => Object.hasOwn(subject.decisions, call.id))
    .map((call) => ({ id: call.id, name: call.name, arguments: call.arguments, decision: subject.decisions[call.id] }));
  // Decisions on ids the batch does not have are signed too, so none can be added afterwards.
  const orphans = Object.keys(subject.decisions).filter((id) => !subject.calls.some((call) => call.id === id));
  return canonicalJson({
    bridle: 'decisions/1',
    kind: subject.kind,
    runId: subject.runId,
    step: subject.step,
    decided,
    orphans,
  });
}

/**
 * Signs decisions kept in a state or journal (HMAC-SHA-256 with `key`), binding each to its run, its
 * batch and the name and arguments of its call. Never throws for plain JSON data.
 */
export function signDecisions(key: Uint8Array, subject: DecisionSubject): string {
  return `${PREFIX}${createHmac('sha256', key).update(signedText(subject)).digest('hex')}`;
}

/**
 * True when `signature` is `signDecisions(key, subject)`: the decisions were kept by a holder of `key`
 * and not changed since, nor moved to another call, batch or run. Compared in constant time; never throws.
 */
export function verifyDecisions(key: Uint8Array, subject: DecisionSubject, signature: unknown): boolean {
  if (typeof signature !== 'string' || !signature.startsWith(PREFIX)) return false;
  const expected = Buffer.from(signDecisions(key, subject));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
