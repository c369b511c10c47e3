import type { RunState } from '@bridle/protocol';
import { StoreError } from '../src/index';

/** What `JSON.parse(JSON.stringify(value))` gives: how every store returns what it was given. */
export function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The StoreError a promise rejects with (fails the test for anything else). */
export async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!StoreError.isInstance(error)) throw new Error(`expected a StoreError, got ${String(error)}`);
  return error;
}

/** A paused run's state, as stores keep it. */
export const state: RunState = { version: 1, runId: 'paused', digest: 'sha256:abc', pending: [{ callId: 'c1' }] };
