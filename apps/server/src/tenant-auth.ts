import { type StatWatcher, unwatchFile, watchFile } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { ServerError } from './server-error';
import {
  API_TOKEN_KEY_NAME,
  type ApiKey,
  DEFAULT_TENANT,
  keyDigest,
  readTenantKeys,
  SCOPES,
  type Scope,
  type TenantKeys,
  type TenantQuotas,
} from './tenant-keys';

/** Who sent a request: the key's tenant, its name (journaled) and what it may do. */
export interface Caller {
  readonly tenant: string;
  /** The key's name from the keys file, `BRIDLE_API_TOKEN`, or undefined on a server without keys. */
  readonly keyName?: string;
  readonly scopes: ReadonlySet<Scope>;
  /** The key's digest (to notice its revocation), undefined on a server without keys. */
  readonly keyDigest?: string;
}

const EVERY_SCOPE: ReadonlySet<Scope> = new Set(SCOPES);

/** The caller of a server with neither `BRIDLE_API_TOKEN` nor a keys file (loopback only): tenant `default`, every scope. */
export const OPEN_CALLER: Caller = { tenant: DEFAULT_TENANT, scopes: EVERY_SCOPE };

/** The quotas of a tenant without any (one shared object: asked on every request). */
const NO_QUOTAS: TenantQuotas = Object.freeze({});

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API's authentication hook (see `callerOf`). */
    bridleCaller: Caller | null;
  }
}

/** Where {@link TenantAuth} reports a keys file it could not reload (the previous keys stay in force). */
export type KeysReloadLogger = (error: unknown) => void;

/**
 * The server's keys: `BRIDLE_API_TOKEN` (one admin key of tenant `default`) and the named keys of
 * `BRIDLE_API_KEYS_FILE`, which is watched: a key removed from the file stops working within about a
 * second (listeners of {@link TenantAuth.onChange} end the streams it had open). Lookups hash the
 * presented secret (SHA-256) and find the digest in a map, so a request costs one hash and never
 * compares secrets.
 */
export class TenantAuth {
  #keys: Map<string, { key: ApiKey; scopes: ReadonlySet<Scope> }> = new Map();
  #quotas: ReadonlyMap<string, TenantQuotas> = new Map();
  readonly #apiToken: string | undefined;
  readonly #file: string | undefined;
  readonly #listeners = new Set<() => void>();
  #watcher: StatWatcher | undefined;

  constructor(options: { apiToken?: string; keysFile?: string; reloadIntervalMs?: number; log?: KeysReloadLogger }) {
    this.#apiToken = options.apiToken;
    this.#file = options.keysFile;
    this.#install(options.keysFile === undefined ? undefined : readTenantKeys(options.keysFile));
    const file = options.keysFile;
    if (file !== undefined) {
      this.#watcher = watchFile(file, { interval: options.reloadIntervalMs ?? 500, persistent: false }, () => {
        try {
          this.#install(readTenantKeys(file));
        } catch (error) {
          options.log?.(error);
          return;
        }
        for (const listener of this.#listeners) listener();
      });
    }
  }

  #install(keys: TenantKeys | undefined): void {
    const next = new Map<string, { key: ApiKey; scopes: ReadonlySet<Scope> }>();
    for (const key of keys?.byDigest.values() ?? []) {
      next.set(key.sha256, { key, scopes: key.scopes.includes('admin') ? EVERY_SCOPE : new Set(key.scopes) });
    }
    if (this.#apiToken !== undefined) {
      const sha256 = keyDigest(this.#apiToken);
      next.set(sha256, {
        key: { name: API_TOKEN_KEY_NAME, tenant: DEFAULT_TENANT, scopes: ['admin'], sha256 },
        scopes: EVERY_SCOPE,
      });
    }
    this.#keys = next;
    this.#quotas = keys?.quotas ?? new Map();
  }

  /** True when the server has named keys (`BRIDLE_API_KEYS_FILE`): runs are counted against their tenant's quotas. */
  get named(): boolean {
    return this.#file !== undefined;
  }

  /** True when requests must carry a key (a token or a keys file is configured). */
  get required(): boolean {
    return this.#apiToken !== undefined || this.#file !== undefined;
  }

  /**
   * The caller of `request` from its `Authorization: Bearer <key>` header; throws `ServerError('unauthorized')`
   * for a missing or unknown key. A server without keys answers {@link OPEN_CALLER}.
   */
  authenticate(request: FastifyRequest): Caller {
    if (!this.required) return OPEN_CALLER;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    const found = match ? this.#keys.get(keyDigest(match[1] as string)) : undefined;
    if (!found) {
      const named = this.#file !== undefined;
      throw new ServerError(
        'unauthorized',
        match
          ? named
            ? 'The bearer token is not valid (an unknown or revoked key).'
            : 'The bearer token is not valid.'
          : named
            ? 'This server needs an API key: send the header "Authorization: Bearer <key>" with a key of BRIDLE_API_KEYS_FILE.'
            : 'This server needs an API token: send the header "Authorization: Bearer <BRIDLE_API_TOKEN>".',
      );
    }
    return { tenant: found.key.tenant, keyName: found.key.name, scopes: found.scopes, keyDigest: found.key.sha256 };
  }

  /** True while the caller's key is still in force (always, on a server without keys). */
  isValid(caller: Caller): boolean {
    return caller.keyDigest === undefined || this.#keys.has(caller.keyDigest);
  }

  /** The quotas of `tenant` from the keys file (none: `{}`). */
  quotasOf(tenant: string): TenantQuotas {
    return this.#quotas.get(tenant) ?? NO_QUOTAS;
  }

  /** Calls `listener` after each reload of the keys file; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops watching the keys file. */
  close(): void {
    if (this.#watcher !== undefined && this.#file !== undefined) unwatchFile(this.#file);
    this.#watcher = undefined;
  }
}

/**
 * Throws `ServerError('forbidden')` naming the missing scope unless `caller` has `scope` (`admin` has all).
 */
export function requireScope(caller: Caller, scope: Scope): void {
  if (caller.scopes.has(scope)) return;
  throw new ServerError(
    'forbidden',
    `The key ${caller.keyName ?? ''} lacks the scope "${scope}" this route needs: add it to the key's scopes in BRIDLE_API_KEYS_FILE.`.replace(
      '  ',
      ' ',
    ),
  );
}

/**
 * Authenticates `request`, checks `scope` and remembers the caller on the request (see {@link callerOf}).
 * Throws `ServerError` `unauthorized` (401) or `forbidden` (403). The one entry point every authenticated
 * route goes through, also those registered outside `/api` and `/v1` (A2A, UI protocols).
 */
export function authorizeRequest(auth: TenantAuth, request: FastifyRequest, scope: Scope | undefined): Caller {
  const caller = auth.authenticate(request);
  if (scope !== undefined) requireScope(caller, scope);
  request.bridleCaller = caller;
  return caller;
}

/** The caller the authentication hook found for `request` ({@link OPEN_CALLER} where none ran). */
export function callerOf(request: FastifyRequest): Caller {
  return request.bridleCaller ?? OPEN_CALLER;
}

/**
 * The scope each route needs, by method and route pattern. A route not listed needs `runs:read` when it
 * only reads (GET) and `admin` otherwise, so a route added without thought is closed rather than open.
 */
const ROUTE_SCOPES: Readonly<Record<string, Scope | null>> = {
  'POST /api/chat': 'chat',
  'POST /api/batch': 'chat',
  'DELETE /api/sessions/:id': 'chat',
  'DELETE /api/batch/:id': 'chat',
  'POST /api/runs/:id/approvals': 'approve',
  'POST /api/runs/:id/input': 'chat',
  'POST /api/runs/:id/cancel': 'chat',
  'POST /api/ui/chat': 'chat',
  // Any valid key: a key reads its own tenant's usage, and the API's description.
  'GET /api/usage': null,
  'GET /openapi.json': null,
  'POST /v1/chat/completions': 'chat',
  'POST /v1/responses': 'chat',
  'GET /v1/models': 'chat',
  // A2A: any valid key reaches the JSON-RPC endpoint; each method checks its scope (chat, approve, runs:read).
  'GET /.well-known/agent-card.json': 'chat',
  'GET /a2a/skills/:skill/agent-card.json': 'chat',
  'POST /a2a': null,
  'POST /a2a/skills/:skill': null,
};

/** The scope a request needs (see the table above); undefined: a valid key is enough (also for unknown paths). */
export function scopeOfRoute(method: string, url: string | undefined): Scope | undefined {
  if (url === undefined) return undefined;
  const listed = ROUTE_SCOPES[`${method} ${url}`];
  if (listed !== undefined) return listed ?? undefined;
  return method === 'GET' || method === 'HEAD' ? 'runs:read' : 'admin';
}
