import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, describeValue } from '@bridle/protocol';

/** What a key may do. `admin` implies every other scope (within its own tenant). */
export type Scope = 'chat' | 'runs:read' | 'approve' | 'admin';

/** Every scope, in the order the documentation lists them. */
export const SCOPES: readonly Scope[] = ['chat', 'runs:read', 'approve', 'admin'];

/** A tenant's limits (each optional; absent: no limit of that kind). */
export interface TenantQuotas {
  /** Requests to `/api` and `/v1` per minute (429 with `Retry-After` beyond). */
  requestsPerMinute?: number;
  /** Input plus output tokens per UTC day, summed over every run of the tenant. */
  tokensPerDay?: number;
  /** US dollars per UTC day, summed over every run of the tenant (priced models only). */
  costUsdPerDay?: number;
  /** US dollars one run may cost. */
  costUsdPerRun?: number;
}

/** One named key of the keys file, with its secret kept only as a SHA-256 digest. */
export interface ApiKey {
  /** The key's name: journaled as who started or decided something, never secret. */
  name: string;
  tenant: string;
  scopes: readonly Scope[];
  /** Lower-case hex SHA-256 of the secret a client sends as `Authorization: Bearer <secret>`. */
  sha256: string;
}

/** The parsed keys file: keys by digest, and quotas by tenant. */
export interface TenantKeys {
  readonly byDigest: ReadonlyMap<string, ApiKey>;
  readonly quotas: ReadonlyMap<string, TenantQuotas>;
}

/** The tenant of `BRIDLE_API_TOKEN`, of runs journaled before tenants existed, and of a server without keys. */
export const DEFAULT_TENANT = 'default';

/** The name journaled for the key `BRIDLE_API_TOKEN`. */
export const API_TOKEN_KEY_NAME = 'BRIDLE_API_TOKEN';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const QUOTA_NAMES = ['requestsPerMinute', 'tokensPerDay', 'costUsdPerDay', 'costUsdPerRun'] as const;

/** Lower-case hex SHA-256 of a secret, as the keys file stores it (`printf %s "$KEY" | sha256sum`). */
export function keyDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function fail(file: string, where: string, problem: string): never {
  throw new ConfigError(
    `Invalid BRIDLE_API_KEYS_FILE ${file}: ${where} ${problem}. See "Many users" in the @bridle/server README for the format.`,
  );
}

function parseKey(file: string, index: number, raw: unknown): ApiKey {
  const where = `keys[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(file, where, 'is not an object');
  const entry = raw as Record<string, unknown>;
  for (const field of Object.keys(entry)) {
    if (!['name', 'tenant', 'scopes', 'sha256'].includes(field))
      fail(file, `${where}.${field}`, 'is not a known field (name, tenant, scopes, sha256)');
  }
  const { name, tenant, scopes, sha256 } = entry;
  if (typeof name !== 'string' || !NAME.test(name))
    fail(file, `${where}.name`, `must be 1 to 64 letters, digits or ._:- (got ${describeValue(name)})`);
  if (typeof tenant !== 'string' || !NAME.test(tenant))
    fail(file, `${where}.tenant`, `must be 1 to 64 letters, digits or ._:- (got ${describeValue(tenant)})`);
  if (typeof sha256 !== 'string' || !DIGEST.test(sha256))
    fail(
      file,
      `${where}.sha256`,
      'must be the 64 lower-case hex digits of the key\'s SHA-256 (`printf %s "$KEY" | sha256sum`), never the key itself',
    );
  if (!Array.isArray(scopes) || scopes.length === 0)
    fail(file, `${where}.scopes`, `must be a non-empty list of ${SCOPES.join(', ')}`);
  for (const scope of scopes) {
    if (!SCOPES.includes(scope as Scope))
      fail(file, `${where}.scopes`, `has ${describeValue(scope)}: expected ${SCOPES.join(', ')}`);
  }
  return { name, tenant, scopes: [...new Set(scopes as Scope[])], sha256 };
}

function parseQuotas(file: string, tenant: string, raw: unknown): TenantQuotas {
  const where = `tenants.${tenant}`;
  if (!NAME.test(tenant)) fail(file, where, 'is not a valid tenant name (letters, digits or ._:-)');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(file, where, 'is not an object');
  const quotas: TenantQuotas = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(QUOTA_NAMES as readonly string[]).includes(name))
      fail(file, `${where}.${name}`, `is not a known quota (${QUOTA_NAMES.join(', ')})`);
    const integer = name === 'requestsPerMinute' || name === 'tokensPerDay';
    const valid =
      typeof value === 'number' && value > 0 && (integer ? Number.isSafeInteger(value) : Number.isFinite(value));
    if (!valid)
      fail(
        file,
        `${where}.${name}`,
        `must be a ${integer ? 'positive integer' : 'positive number'} (got ${describeValue(value)})`,
      );
    quotas[name as keyof TenantQuotas] = value as number;
  }
  return quotas;
}

/**
 * Parses the text of a keys file (JSON: `{ keys: [{ name, tenant, scopes, sha256 }], tenants?: { <tenant>:
 * quotas } }`). Throws `ConfigError` naming the file, the entry and the fix. `file` is only used in messages.
 */
export function parseTenantKeys(text: string, file: string): TenantKeys {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    fail(file, 'the file', `is not JSON (${(error as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    fail(file, 'the file', 'must hold an object { "keys": [...], "tenants": {...} }');
  const { keys, tenants, ...rest } = document as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) fail(file, extra, 'is not a known field (keys, tenants)');
  if (!Array.isArray(keys)) fail(file, 'keys', 'must be a list');
  const byDigest = new Map<string, ApiKey>();
  const names = new Set<string>();
  keys.forEach((raw, index) => {
    const key = parseKey(file, index, raw);
    if (names.has(key.name)) fail(file, `keys[${index}].name`, `repeats the name "${key.name}": names must be unique`);
    if (byDigest.has(key.sha256)) fail(file, `keys[${index}].sha256`, 'repeats the digest of another key');
    names.add(key.name);
    byDigest.set(key.sha256, key);
  });
  const quotas = new Map<string, TenantQuotas>();
  if (tenants !== undefined) {
    if (typeof tenants !== 'object' || tenants === null || Array.isArray(tenants))
      fail(file, 'tenants', 'must be an object of tenant name to quotas');
    for (const [tenant, raw] of Object.entries(tenants)) quotas.set(tenant, parseQuotas(file, tenant, raw));
  }
  return { byDigest, quotas };
}

/** Reads and parses a keys file; throws `ConfigError` when it cannot be read or is not valid. */
export function readTenantKeys(file: string): TenantKeys {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(file, 'the file', `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseTenantKeys(text, file);
}
