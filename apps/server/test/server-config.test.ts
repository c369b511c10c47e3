import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../src/loopback';
import { resolveServerConfig } from '../src/server-config';

describe('resolveServerConfig', () => {
  it('has the SPEC defaults', () => {
    expect(resolveServerConfig({ env: {} })).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      maxConcurrentRuns: 16,
      runTimeoutMs: 120_000,
      shutdownGraceMs: 10_000,
      bodyLimit: 1024 * 1024,
    });
    expect(resolveServerConfig({ env: {} }).apiToken).toBeUndefined();
  });

  it('reads the environment, and options win over it', () => {
    const env = {
      HOST: '0.0.0.0',
      PORT: '8080',
      BRIDLE_API_TOKEN: 'abcdefghijklmnopqrstuvwxyz',
      BRIDLE_MAX_CONCURRENT_RUNS: '4',
      BRIDLE_RUN_TIMEOUT_MS: '5000',
      BRIDLE_SHUTDOWN_GRACE_MS: '0',
    };
    expect(resolveServerConfig({ env })).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      apiToken: env.BRIDLE_API_TOKEN,
      maxConcurrentRuns: 4,
      runTimeoutMs: 5000,
      shutdownGraceMs: 0,
    });
    expect(resolveServerConfig({ env, port: 9000, maxConcurrentRuns: 2 })).toMatchObject({
      port: 9000,
      maxConcurrentRuns: 2,
    });
  });

  it.each([
    [{ PORT: 'http' }, 'Invalid server setting PORT=http: expected an integer from 0 to 65535.'],
    [{ PORT: '70000' }, 'Invalid server setting PORT=70000: expected an integer from 0 to 65535.'],
    [
      { BRIDLE_MAX_CONCURRENT_RUNS: '0' },
      'Invalid server setting BRIDLE_MAX_CONCURRENT_RUNS=0: expected an integer from 1',
    ],
    [{ BRIDLE_RUN_TIMEOUT_MS: '1.5' }, 'Invalid server setting BRIDLE_RUN_TIMEOUT_MS=1.5'],
    [{ BRIDLE_SHUTDOWN_GRACE_MS: '-1' }, 'Invalid server setting BRIDLE_SHUTDOWN_GRACE_MS=-1'],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => resolveServerConfig({ env })).toThrow(message);
  });

  it('names the bad option', () => {
    expect(() => resolveServerConfig({ env: {}, maxConcurrentRuns: 0 })).toThrow(
      'Invalid server setting maxConcurrentRuns: number 0: expected an integer from 1',
    );
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['127.example.com', false],
    ['localhost.evil.com', false],
  ])('%s -> %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('BRIDLE_STORE', () => {
  it('defaults to memory: (SPEC); the variable and then the option win', () => {
    expect(resolveServerConfig({ env: {} }).storeUrl).toBe('memory:');
    expect(resolveServerConfig({ env: { BRIDLE_STORE: ' sqlite:.bridle/bridle.db ' } }).storeUrl).toBe(
      'sqlite:.bridle/bridle.db',
    );
    expect(resolveServerConfig({ env: { BRIDLE_STORE: 'memory:' }, store: 'sqlite:/tmp/x.db' }).storeUrl).toBe(
      'sqlite:/tmp/x.db',
    );
  });

  it('with BRIDLE_REDIS_URL refuses a memory: store, naming BRIDLE_STORE; reads the queue prefix', () => {
    const message =
      'BRIDLE_REDIS_URL is set, but the store is memory: (BRIDLE_STORE unset or memory:): workers in other processes run the queued runs, so runs and sessions must be in a store they share. Set BRIDLE_STORE to the store the workers use (e.g. BRIDLE_STORE=postgres://user@host:5432/bridle).';
    expect(() => resolveServerConfig({ env: { BRIDLE_REDIS_URL: 'redis://127.0.0.1:6379' } })).toThrow(message);
    expect(() => resolveServerConfig({ env: {}, redis: 'redis://r:6379', store: 'MEMORY:' })).toThrow(message);
    expect(
      resolveServerConfig({
        env: { BRIDLE_REDIS_URL: 'redis://r:6379', BRIDLE_STORE: 'postgres://db/x', BRIDLE_QUEUE_PREFIX: 'blue' },
      }),
    ).toMatchObject({ redisUrl: 'redis://r:6379', storeUrl: 'postgres://db/x', queuePrefix: 'blue' });
    expect(resolveServerConfig({ env: {} })).toMatchObject({ queuePrefix: 'bridle' });
    expect(resolveServerConfig({ env: {} }).redisUrl).toBeUndefined();
  });
});
