import { RedisQuotaLedger } from '@bridle/queue';
import { afterAll, expect, it } from 'vitest';
import { json, postJson, startTestServer } from './helpers';
import { dropPrefix, newPrefix, newSchemaStoreUrl, REDIS_URL, serviceSuite } from './services';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const suite = await serviceSuite('tenant quotas shared through Redis by two servers');

suite('tenant quotas across two server processes (Redis, Postgres)', { timeout: 60_000 }, () => {
  const prefix = newPrefix();
  afterAll(async () => {
    await dropPrefix(prefix);
  });

  it('requestsPerMinute and tokensPerDay count once for both servers; isolation holds across them', async () => {
    const { url: storeUrl } = newSchemaStoreUrl();
    const file = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { requestsPerMinute: 4, tokensPerDay: 50 } });
    const options = { store: storeUrl, redis: REDIS_URL, queuePrefix: prefix, modelId: 'test:echo' };
    const one = await startTestServer({ ...options, env: { BRIDLE_API_KEYS_FILE: file } });
    const two = await startTestServer({ ...options, env: { BRIDLE_API_KEYS_FILE: file } });
    // Spend the day's tokens through server one's ledger, as a run's settled calls would.
    const ledger = await RedisQuotaLedger.open(REDIS_URL, prefix);
    await ledger.add('acme', { tokens: 50, costUsd: 0 });
    await ledger.close();
    const usage = await json(await fetch(`${two.url}/api/usage`, { headers: bearer(KEYS.acme) }));
    expect(usage.day.tokens).toBe(50);
    const refused = await postJson(`${one.url}/api/chat`, { prompt: 'hello' }, bearer(KEYS.acme));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('tokensPerDay (50 tokens; 50 used today)');
    const minute = Math.floor(Date.now() / 60_000);
    const statuses: number[] = [];
    for (const server of [one, two, one])
      statuses.push((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status);
    // The usage read and the refused chat were requests 1 and 2 of the minute: the 5th, on server one, is
    // refused (unless the minute turned over meanwhile: Redis and this process share one machine's clock).
    if (Math.floor(Date.now() / 60_000) === minute) expect(statuses).toEqual([200, 200, 429]);
    // The other tenant is not limited, and sees nothing of acme's on either server.
    expect((await json(await fetch(`${two.url}/api/runs`, { headers: bearer(KEYS.globex) }))).runs).toEqual([]);
  });

  it("daily windows come from Redis's clock: ledgers on machines with skewed clocks count into one day", async () => {
    const local = newPrefix();
    const a = await RedisQuotaLedger.open(REDIS_URL, local);
    const b = await RedisQuotaLedger.open(REDIS_URL, local);
    try {
      // The ledger takes no clock of its own: the process's clock (skewed or not) never picks the window.
      const skewed = Date.now;
      Date.now = () => skewed() + 13 * 3_600_000;
      try {
        expect(await a.reserve('acme', { tokens: 60, costUsd: 0 }, { tokensPerDay: 100 })).toMatchObject({ ok: true });
      } finally {
        Date.now = skewed;
      }
      const refused = await b.reserve('acme', { tokens: 60, costUsd: 0.5 }, { tokensPerDay: 100 });
      expect(refused).toMatchObject({ ok: false, quota: 'tokensPerDay', tokens: 60 });
      expect(refused.resetMs).toBeGreaterThan(0);
      expect(refused.resetMs).toBeLessThanOrEqual(86_400_000);
      await b.add('acme', { tokens: -10, costUsd: 0.25 });
      expect(await a.day('acme')).toMatchObject({ tokens: 50, costUsd: 0.25 });
    } finally {
      await a.close();
      await b.close();
      await dropPrefix(local);
    }
  });
});
