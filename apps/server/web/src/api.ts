import type { RunSummary } from '@bridle/protocol';
import { createParser } from 'eventsource-parser';

/** A run event as the server sends it (SPEC event shapes; only the fields the inspector shows). */
export interface InspectorEvent {
  type: string;
  runId: string;
  sequence: number;
  timestamp: string;
  parentRunId?: string;
  step?: number;
  attempt?: number;
  durationMs?: number;
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
  content?: string;
  model?: string;
  toolCalls?: number;
  callId?: string;
  name?: string;
  arguments?: unknown;
  result?: string;
  isError?: boolean;
  error?: string;
  status?: string;
  answer?: string;
  text?: string;
  steps?: number;
  pendingApprovals?: PendingApproval[];
}

export interface PendingApproval {
  callId: string;
  name: string;
  arguments: unknown;
  runId?: string;
}

/** One row of `GET /api/runs` (the server's `RunRow`: a store's run summary). */
export type RunRow = RunSummary;

export interface RunDetail {
  runId: string;
  status: string;
  events: InspectorEvent[];
  pendingApprovals?: PendingApproval[];
}

export interface SessionRow {
  id: string;
  messageCount?: number;
  updatedAt: string;
}

const TOKEN_KEY = 'bridle-api-token';

/** The token lives in this tab's sessionStorage only: never in the URL, never in a cookie. */
export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An API error with the server's message (its `error.message`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const value = token.get();
  return { ...extra, ...(value ? { authorization: `Bearer ${value}` } : {}) };
}

async function failure(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    message = body?.error?.message ?? body?.message ?? message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, message);
}

/** GET a JSON document of the API. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: headers(), signal });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** POST JSON to the API and read the JSON answer. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/**
 * Follows a run's SSE stream (`GET /api/runs/:id/events`) with fetch, so the token travels in a header
 * (EventSource cannot send one). Calls `onEvent` per frame until the stream ends or `signal` aborts.
 */
export async function followRun(
  runId: string,
  onEvent: (event: InspectorEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/events`, {
    headers: headers({ accept: 'text/event-stream' }),
    signal,
  });
  if (!response.ok || !response.body) throw await failure(response);
  const parser = createParser({
    onEvent(message) {
      try {
        onEvent(JSON.parse(message.data) as InspectorEvent);
      } catch {
        // a frame that is not JSON (a comment or keep-alive) is skipped
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}
