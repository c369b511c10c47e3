import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyDigest } from '../src/index';

/** One key of a test keys file: its secret (sent by clients), and what the file says of it. */
export interface TestKey {
  name: string;
  tenant: string;
  scopes: string[];
  secret: string;
}

/** The keys most tenant tests use: two tenants with a full key each, and narrower keys of tenant `acme`. */
export const KEYS = {
  acme: {
    name: 'acme-app',
    tenant: 'acme',
    scopes: ['chat', 'runs:read', 'approve'],
    secret: 'acme-secret-0123456789',
  },
  acmeReader: { name: 'acme-reader', tenant: 'acme', scopes: ['runs:read'], secret: 'acme-reader-0123456789' },
  acmeAdmin: { name: 'acme-admin', tenant: 'acme', scopes: ['admin'], secret: 'acme-admin-0123456789' },
  globex: {
    name: 'globex-app',
    tenant: 'globex',
    scopes: ['chat', 'runs:read', 'approve'],
    secret: 'globex-secret-0123456789',
  },
} satisfies Record<string, TestKey>;

/** Writes a keys file (digests only) into a new temporary folder; returns its path. */
export function writeKeysFile(keys: readonly TestKey[], tenants: Record<string, object> = {}, file?: string): string {
  const path = file ?? join(mkdtempSync(join(tmpdir(), 'bridle-keys-')), 'keys.json');
  const document = {
    keys: keys.map(({ name, tenant, scopes, secret }) => ({ name, tenant, scopes, sha256: keyDigest(secret) })),
    tenants,
  };
  writeFileSync(path, JSON.stringify(document, null, 2));
  return path;
}

/** The `Authorization` header of a key. */
export function bearer(key: TestKey): Record<string, string> {
  return { authorization: `Bearer ${key.secret}` };
}
