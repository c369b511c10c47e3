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
  /** `approval_requested`: when the wait ends (ISO 8601). */
  deadline?: string;
  /** `model_error`: another attempt of the step follows. */
  willRetry?: boolean;
  /** `run_start`: the first segment's prompt (a session's turn carries `messages` instead). */
  prompt?: string;
  messages?: { role: string; content: string }[];
  resumed?: boolean;
  /** `run_start` of a journaled run, once the server journals it (third release): what the run had. */
  manifest?: RunManifest;
  /** `approval_decided` (third release): who decided, and who by. */
  approved?: boolean;
  decidedBy?: string;
  by?: string;
  /** `run_end` of a cancelled run (third release). */
  cancelledBy?: string;
}

/** A run's manifest (SPEC third release, `run_start.manifest`); shown when present. */
export interface RunManifest {
  model?: string;
  skills?: string[];
  workspace?: string;
  presets?: unknown;
  mcpServers?: string[];
  tools?: { name: string; schemaDigest?: string }[];
  limits?: Record<string, unknown>;
}

export interface PendingApproval {
  callId: string;
  name: string;
  arguments: unknown;
  /** Set when a sub-agent (agentTool) of the run made the call: the sub-agent's run. */
  runId?: string;
  /** Binds a decision to this call: sent back with it, so it never applies to a later call. */
  digest?: string;
  /** When the wait ends (ISO 8601): undecided then, the call is denied. */
  deadline?: string;
}

/** One row of `GET /api/runs` (the server's `RunRow`: a store's run summary; owner and lease once stores keep them). */
export type RunRow = RunSummary & { owner?: string; leaseUntil?: string };

/** `GET /api/runs`: a page of runs and how many runs wait for approval (whatever the filters). */
export interface RunsPage {
  runs: RunRow[];
  awaitingApproval?: number;
}

/** The filters of the runs list (`GET /api/runs`); empty strings are left out. */
export interface RunFilters {
  status?: string;
  model?: string;
  sessionId?: string;
  search?: string;
  since?: string;
  before?: string;
  limit?: number;
}

/** `GET /api/overview` (the store's aggregates over a window). */
export interface Overview {
  since: string;
  until?: string;
  runsPerHour: { hour: string; status: string; runs: number }[];
  duration: { runs: number; p50Ms?: number; p95Ms?: number };
  usagePerDay: {
    day: string;
    model: string;
    runs: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  }[];
  slowestTools: { name: string; calls: number; errors: number; meanMs: number; maxMs: number }[];
}

/** `GET /api/sessions/:id`. */
export interface SessionDetail {
  id: string;
  messages: { role: string; content: string; toolCalls?: { name: string }[] }[];
  createdAt?: string;
  updatedAt?: string;
}

export interface RunDetail extends Partial<RunRow> {
  runId: string;
  status: string;
  events: InspectorEvent[];
  /** The sub-agent runs this run started, by call. */
  subAgents?: { callId: string; runId: string }[];
  pendingApprovals?: PendingApproval[];
  /** A sub-agent's run: the run (and call) that started it, where its calls are decided. */
  parent?: { runId: string; callId: string };
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

/** POST JSON to the API (with `extra` headers) and read the JSON answer. */
export async function postJson<T>(path: string, body: unknown, extra: Record<string, string> = {}): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', ...extra }),
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
  await readEvents(response.body, onEvent);
}

/** The query string of a filter set (empty values left out). */
export function filterQuery(filters: RunFilters): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** The typed client of the console: one function per API read it makes. */
export const api = {
  runs: (filters: RunFilters, signal?: AbortSignal) => getJson<RunsPage>(`/api/runs${filterQuery(filters)}`, signal),
  run: (runId: string, signal?: AbortSignal) => getJson<RunDetail>(`/api/runs/${encodeURIComponent(runId)}`, signal),
  overview: (window: { since?: string }, signal?: AbortSignal) =>
    getJson<Overview>(`/api/overview${filterQuery(window)}`, signal),
  sessions: (signal?: AbortSignal) => getJson<{ sessions: SessionRow[] }>('/api/sessions?limit=100', signal),
  session: (id: string, signal?: AbortSignal) =>
    getJson<SessionDetail>(`/api/sessions/${encodeURIComponent(id)}`, signal),
};

/**
 * Sends a chat prompt and follows its events as they stream (`POST /api/chat` with `Accept: text/event-stream`):
 * `onEvent` per event until the run's `run_end`.
 */
export async function streamChat(
  body: { prompt: string; sessionId?: string },
  onEvent: (event: InspectorEvent & { sessionId?: string }) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await fetch('/api/chat', {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', accept: 'text/event-stream' }),
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok || !response.body) throw await failure(response);
  await readEvents(response.body, onEvent);
}

async function readEvents(body: ReadableStream<BufferSource>, onEvent: (event: InspectorEvent) => void): Promise<void> {
  const parser = createParser({
    onEvent(message) {
      try {
        onEvent(JSON.parse(message.data) as InspectorEvent);
      } catch {
        // a frame that is not JSON (a comment or keep-alive) is skipped
      }
    },
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}
