import { describeValue, type StoredSession } from '@bridle/protocol';
import { checkId, checkTime } from './check-id';
import type { StoreLimits } from './limits';
import { StoreError } from './store-error';

/** A session checked and encoded for saving. */
export interface PreparedSession {
  id: string;
  /** The whole session as JSON, as stored and returned by `getSession`. */
  json: string;
  messageCount: number;
  /** Canonical ISO 8601 UTC times, for ordering and paging. */
  createdAt: string;
  updatedAt: string;
  /** The session's tenant, when it names one. */
  tenant?: string;
}

/**
 * Checks a session for `saveSession`: a string `id`, an array of `messages`, `createdAt` and `updatedAt` times,
 * `meta` a plain object when present, JSON-encodable and within `maxSessionChars`.
 * Throws `StoreError` (`invalid_input`) naming the problem; nothing is written then.
 */
export function prepareSession(session: unknown, limits: StoreLimits): PreparedSession {
  if (typeof session !== 'object' || session === null || Array.isArray(session)) {
    throw new StoreError('invalid_input', `saveSession: session must be an object, got ${describeValue(session)}`);
  }
  const { id, messages, meta, tenant } = session as Partial<StoredSession>;
  checkId(id, 'saveSession: session.id');
  const where = `saveSession(${JSON.stringify(id)})`;
  if (!Array.isArray(messages)) {
    throw new StoreError('invalid_input', `${where}: messages must be an array, got ${describeValue(messages)}`);
  }
  if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) {
    throw new StoreError('invalid_input', `${where}: meta must be an object when given, got ${describeValue(meta)}`);
  }
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
    throw new StoreError(
      'invalid_input',
      `${where}: tenant must be a non-empty string when given, got ${describeValue(tenant)}`,
    );
  }
  const fail = (error: unknown): never => {
    throw new StoreError('invalid_input', `${where}: ${(error as Error).message}`);
  };
  let createdAt = '';
  let updatedAt = '';
  try {
    createdAt = checkTime((session as StoredSession).createdAt, 'createdAt');
    updatedAt = checkTime((session as StoredSession).updatedAt, 'updatedAt');
  } catch (error) {
    fail(error);
  }
  let json = '';
  try {
    json = JSON.stringify(session);
  } catch (error) {
    fail(new Error(`the session is not JSON: ${(error as Error).message}`));
  }
  if (json.length > limits.maxSessionChars) {
    throw new StoreError(
      'invalid_input',
      `${where}: the session is ${json.length} characters of JSON, over the limit of ${limits.maxSessionChars} (maxSessionChars); compact its messages first`,
    );
  }
  return tenant === undefined
    ? { id, json, messageCount: messages.length, createdAt, updatedAt }
    : { id, json, messageCount: messages.length, createdAt, updatedAt, tenant };
}

/**
 * The values of a session's row, in the column order of both SQL stores' `saveSession` statement:
 * `(id, data, message_count, created_at, updated_at, tenant)`.
 */
export function sessionRow(prepared: PreparedSession): [string, string, number, string, string, string | null] {
  return [
    prepared.id,
    prepared.json,
    prepared.messageCount,
    prepared.createdAt,
    prepared.updatedAt,
    prepared.tenant ?? null,
  ];
}

/** Parses a stored session; throws `StoreError` (`corrupt`) naming the session when it cannot be read. */
export function decodeSession(id: string, json: string): StoredSession {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw corruptSession(id, `its JSON does not parse (${(error as Error).message})`);
  }
  const session = value as Partial<StoredSession> | null;
  if (typeof session !== 'object' || session === null || session.id !== id || !Array.isArray(session.messages)) {
    throw corruptSession(id, 'it is not a session with this id and a messages array');
  }
  return session as StoredSession;
}

function corruptSession(id: string, why: string): StoreError {
  return new StoreError(
    'corrupt',
    `session ${JSON.stringify(id)} is corrupt: ${why}. Other sessions are unaffected; save it again or delete it`,
  );
}
