import type { QuotaLedger } from '@bridle/core';
import type { Model, Store } from '@bridle/protocol';
import type { FastifyRequest } from 'fastify';
import type { BatchJobs } from './batch-jobs';
import type { EventStreams } from './event-streams';
import type { LiveRuns } from './live-runs';
import type { QueuedRuns } from './queued-runs';
import type { RunLimiter } from './run-limiter';
import type { RunProfiles } from './run-profiles';
import type { ServerConfig } from './server-config';
import { ServerError } from './server-error';
import type { ServerAgentOptions } from './server-options';
import type { SessionStore } from './session-store';
import type { TenantAuth } from './tenant-auth';

/** The model, or why there is none (a missing key: the server runs but is not ready); `error` never holds credentials. */
export type ModelSource = { model: Model } | { error: string };

/** Everything the routes share. */
export interface ServerContext {
  readonly config: ServerConfig;
  readonly limiter: RunLimiter;
  /** Set once at startup, when the store has opened (before any route runs). */
  sessions: SessionStore;
  /** Where every run is journaled; set once at startup, when it has opened (before any route runs). */
  store: Store;
  /** Runs going on in this process, for their event streams. */
  readonly live: LiveRuns;
  /** The open `GET /api/runs/:id/events` streams, bounded per client and in total. */
  readonly eventStreams: EventStreams;
  /** Runs being resumed by an approval now: a second decision at once is refused (one resume only). */
  readonly resumingRuns: Set<string>;
  /** Sessions with a run in flight: a second run on one session at once would lose one of the two. */
  readonly busySessions: Set<string>;
  readonly jobs: BatchJobs;
  /** With `BRIDLE_REDIS_URL`: the queue `/api/chat` and `/api/batch` runs go through (set at startup). */
  queue?: QueuedRuns;
  /** Replaced once at startup when skills are loaded from folders (`BRIDLE_SKILL`). */
  profiles: RunProfiles;
  readonly modelSource: ModelSource;
  readonly agent: ServerAgentOptions;
  readonly state: { shuttingDown: boolean };
  /** The server's keys (`BRIDLE_API_TOKEN`, `BRIDLE_API_KEYS_FILE`): who a request is, and its tenant's quotas. */
  readonly auth: TenantAuth;
  /**
   * Each tenant's requests, tokens and dollars (Redis with `BRIDLE_REDIS_URL`, else the database of a SQLite or
   * Postgres store, else this process); set at startup.
   */
  ledger: QuotaLedger;
  /** True when the request may see details: it carries a valid key, or the server has none. */
  readonly isAuthorized: (request: FastifyRequest) => boolean;
}

/** The configured model; throws `ServerError('not_ready')` saying what to configure when there is none. */
export function requireModel(context: ServerContext): Model {
  if ('model' in context.modelSource) return context.modelSource.model;
  throw new ServerError('not_ready', `No model is available: ${context.modelSource.error}`, { retryAfterSeconds: 30 });
}
