import type { RunEvent } from '@bridle/protocol';
import { type ServerApi, serverError } from './server-api';

/** A call a paused run waits on, as `GET /api/runs/:id` shows it. */
export interface PendingCall {
  callId: string;
  name: string;
  arguments: unknown;
  /** The pause's binding: a decision naming it applies to this call on this pause only. */
  digest?: string;
}

/** What `GET /api/runs/:id` says of a run (the parts `bridle attach` reads). */
export interface ServerRun {
  status: string;
  pendingApprovals?: PendingCall[];
  events?: RunEvent[];
}

/** A refusal of the server: its HTTP status, error code and message. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

async function refusal(response: Response): Promise<ServerRefusal> {
  const { code, message } = await serverError(response);
  return new ServerRefusal(response.status, code, message);
}

/** `GET /api/runs/:id`; throws {@link ServerRefusal} (404 for a run the server does not know). */
export async function readServerRun(api: ServerApi, runId: string, signal: AbortSignal): Promise<ServerRun> {
  const response = await fetch(api.url(`runs/${encodeURIComponent(runId)}`), { headers: api.headers(), signal });
  if (!response.ok) throw await refusal(response);
  return (await response.json()) as ServerRun;
}

/**
 * `POST /api/runs/:id/approvals` with each decision bound to its call's digest, asking the server to run the resumed
 * segment on its own (`Prefer: respond-async`): resolves with true when it did (202, as soon as the segment is
 * under way: closing this process no longer stops it), false when it answered once the segment ended (a server
 * from before that preference). Throws {@link ServerRefusal} (409 when the call is no longer pending: decided
 * elsewhere).
 */
export async function postDecisions(
  api: ServerApi,
  runId: string,
  decisions: readonly { call: PendingCall; approved: boolean }[],
): Promise<boolean> {
  const approvals: Record<string, { approved: boolean; digest?: string }> = {};
  for (const { call, approved } of decisions)
    approvals[call.callId] = call.digest === undefined ? { approved } : { approved, digest: call.digest };
  const response = await fetch(api.url(`runs/${encodeURIComponent(runId)}/approvals`), {
    method: 'POST',
    headers: api.headers({ 'content-type': 'application/json', accept: 'application/json', prefer: 'respond-async' }),
    body: JSON.stringify({ approvals }),
  });
  if (!response.ok) throw await refusal(response);
  await response.arrayBuffer();
  return response.status === 202;
}

/** `POST /api/runs/:id/input` `{ content }`; throws {@link ServerRefusal} (409 `run_ended` for an ended run). */
export async function postInput(api: ServerApi, runId: string, content: string): Promise<void> {
  const response = await fetch(api.url(`runs/${encodeURIComponent(runId)}/input`), {
    method: 'POST',
    headers: api.headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ content }),
  });
  if (response.status !== 202) throw await refusal(response);
  await response.arrayBuffer();
}
