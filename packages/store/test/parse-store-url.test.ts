import path from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { parseStoreUrl } from '../src/parse-store-url';

const cwd = '/work/project';

function refusal(url: string): string {
  try {
    parseStoreUrl(url, cwd);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

describe('parseStoreUrl', () => {
  it('reads memory:, sqlite: paths (relative to cwd) with their parameters, and bare paths', () => {
    expect(parseStoreUrl('memory:', cwd)).toEqual({ kind: 'memory' });
    expect(parseStoreUrl('sqlite:.bridle/bridle.db', cwd)).toEqual({
      kind: 'sqlite',
      path: path.resolve(cwd, '.bridle/bridle.db'),
    });
    expect(parseStoreUrl('SQLite:/var/lib/b.db?synchronous=full&busy_timeout=250', cwd)).toEqual({
      kind: 'sqlite',
      path: '/var/lib/b.db',
      synchronous: 'full',
      busyTimeoutMs: 250,
    });
    expect(parseStoreUrl('runs.db', cwd)).toEqual({ kind: 'sqlite', path: '/work/project/runs.db' });
    expect(parseStoreUrl('./data/runs?.db', cwd)).toEqual({ kind: 'sqlite', path: '/work/project/data/runs?.db' });
    expect(parseStoreUrl('C:\\data\\runs.db', cwd).kind).toBe('sqlite');
  });

  it('reads postgres:// and postgresql:// URLs, taking schema and connect_timeout out of the connection string', () => {
    expect(
      parseStoreUrl('postgres://u:secret@db.internal:6543/bridle?schema=tenant_1&connect_timeout=2.5&sslmode=require'),
    ).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://u:secret@db.internal:6543/bridle?sslmode=require',
      schema: 'tenant_1',
      connectTimeoutMs: 2500,
      redacted: 'postgres://u:***@db.internal:6543/bridle?sslmode=require',
    });
    expect(parseStoreUrl('postgres://localhost/test?synchronous=full')).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://localhost/test',
      synchronous: 'full',
      redacted: 'postgres://localhost/test',
    });
    expect(refusal('postgres://u:pw@localhost/test?synchronous=off')).toBe(
      "store URL postgres://u:***@localhost/test?synchronous=off: synchronous must be 'full' or 'normal', got \"off\"",
    );
    expect(parseStoreUrl('postgresql://localhost/test')).toEqual({
      kind: 'postgres',
      connectionString: 'postgresql://localhost/test',
      redacted: 'postgresql://localhost/test',
    });
  });

  it('refuses other forms with a ConfigError naming the redacted URL and the accepted forms', () => {
    const mysql = refusal('mysql://root:hunter2@localhost/db');
    expect(mysql).toContain("unknown store URL mysql://***@localhost/db: the scheme 'mysql:' is not supported");
    expect(mysql).toContain("accepted forms: 'memory:', 'sqlite:<path>'");
    expect(mysql).toContain("'postgres://user:password@host:5432/database'");
    expect(mysql).not.toContain('hunter2');
    expect(refusal('')).toContain('store URL must be a non-empty string, got ""');
    expect(refusal('memory:shared')).toContain("'memory:' takes nothing after the colon");
    expect(refusal('sqlite:')).toContain("'sqlite:' needs a file path");
    expect(refusal('sqlite:///tmp/x.db')).toContain("(no '//')");
    expect(refusal('sqlite:x.db?synchronous=off')).toContain('unknown SQLite parameter synchronous="off"');
    expect(refusal('sqlite:x.db?journal=wal')).toContain('unknown SQLite parameter journal="wal"');
    expect(refusal('postgres://u:p@host/db?connect_timeout=soon')).toContain(
      'store URL postgres://u:***@host/db?connect_timeout=soon: connect_timeout must be a positive number of seconds',
    );
    expect(refusal('postgres://[bad')).toContain('it is not a valid URL');
  });
});
