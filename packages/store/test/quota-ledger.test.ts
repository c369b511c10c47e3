import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { QuotaLedger } from '@bridle/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { openQuotaLedger, openStore } from '../src/index';
import { dropSchemas, newSchema, POSTGRES_URL, postgresProblem } from './postgres-target';

const problem = await postgresProblem();
if (problem !== undefined && process.env.CI !== 'true') {
  console.warn(
    `SKIPPED @bridle/store Postgres quota ledger tests: no Postgres at ${POSTGRES_URL} (${problem}); set BRIDLE_TEST_POSTGRES_URL`,
  );
}
it.runIf(problem !== undefined && process.env.CI === 'true')('Postgres is reachable (required when CI=true)', () => {
  throw new Error(`no Postgres at ${POSTGRES_URL}: ${problem}; start it or set BRIDLE_TEST_POSTGRES_URL`);
});
afterAll(async () => {
  if (problem === undefined) await dropSchemas();
});

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-store-quotas-'));

/** A store URL and the ledgers two processes of a deployment would open on it. */
const kinds: { name: string; skip: boolean; url: () => Promise<string> }[] = [
  {
    name: 'sqlite',
    skip: false,
    url: async () => `sqlite:${path.join(fs.mkdtempSync(path.join(root, 'db-')), 'bridle.db')}`,
  },
  {
    name: 'postgres',
    skip: problem !== undefined,
    url: async () => {
      // The store creates the schema; the ledger's table goes beside its tables.
      const url = `${POSTGRES_URL}?schema=${newSchema()}`;
      await (await openStore(url, { connectTimeoutMs: 20_000 })).close();
      return url;
    },
  },
];

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`openQuotaLedger (${kind.name}): counters every process on the store shares`, () => {
    it('counts requests per minute and tokens and dollars per day once for two connections, in the database clock', async () => {
      const url = await kind.url();
      const [a, b] = [await openQuotaLedger(url, { cwd: root }), await openQuotaLedger(url, { cwd: root })] as [
        QuotaLedger,
        QuotaLedger,
      ];
      try {
        expect((await a.countRequest('acme')).count).toBe(1);
        const second = await b.countRequest('acme');
        expect(second.count).toBe(2);
        expect(second.resetMs).toBeGreaterThan(0);
        expect(second.resetMs).toBeLessThanOrEqual(60_000);
        expect((await b.countRequest('globex')).count).toBe(1);
        // The process's clock never picks the window: a process 13 hours ahead counts into the same day.
        const real = Date.now;
        Date.now = () => real() + 13 * 3_600_000;
        try {
          expect(await a.reserve('acme', { tokens: 60, costUsd: 0.5 }, { tokensPerDay: 100 })).toMatchObject({
            ok: true,
            tokens: 60,
            costUsd: 0.5,
          });
        } finally {
          Date.now = real;
        }
        const refused = await b.reserve('acme', { tokens: 50, costUsd: 0 }, { tokensPerDay: 100 });
        expect(refused).toMatchObject({ ok: false, quota: 'tokensPerDay', tokens: 60, costUsd: 0.5 });
        expect(refused.resetMs).toBeGreaterThan(0);
        expect(refused.resetMs).toBeLessThanOrEqual(86_400_000);
        expect(await b.reserve('acme', { tokens: 10, costUsd: 0.25 }, { costUsdPerDay: 0.7 })).toMatchObject({
          ok: false,
          quota: 'costUsdPerDay',
        });
        // The amount alone past a limit is refused without writing anything.
        expect(await b.reserve('acme', { tokens: 500, costUsd: 0 }, { tokensPerDay: 100 })).toMatchObject({
          ok: false,
          quota: 'tokensPerDay',
          tokens: 60,
        });
        await b.add('acme', { tokens: -10, costUsd: 0.25 });
        expect(await a.day('acme')).toMatchObject({ tokens: 50, costUsd: 0.75 });
        expect(await a.day('globex')).toMatchObject({ tokens: 0, costUsd: 0 });
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('opens on a fresh store from many processes at once: one of them creates the table, none fails', async () => {
      for (let round = 0; round < 30; round += 1) {
        const url = await kind.url();
        const ledgers = await Promise.all(Array.from({ length: 16 }, () => openQuotaLedger(url, { cwd: root })));
        try {
          await Promise.all(ledgers.map((ledger) => ledger.countRequest('acme')));
          expect((await (ledgers[0] as QuotaLedger).countRequest('acme')).count).toBe(17);
        } finally {
          await Promise.all(ledgers.map((ledger) => ledger.close()));
        }
      }
      // 480 ledgers on 30 fresh stores: about 2 s on a quiet machine, over 20 s at load 20 (CI beside benchmarks).
    }, 180_000);

    it('is atomic: of reservations that would pass the limit together, only those that fit are taken', async () => {
      const url = await kind.url();
      const ledgers = await Promise.all([openQuotaLedger(url, { cwd: root }), openQuotaLedger(url, { cwd: root })]);
      try {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            (ledgers[index % 2] as QuotaLedger).reserve('acme', { tokens: 30, costUsd: 0 }, { tokensPerDay: 100 }),
          ),
        );
        expect(answers.filter((answer) => answer.ok)).toHaveLength(3);
        expect((await (ledgers[0] as QuotaLedger).day('acme')).tokens).toBe(90);
      } finally {
        await Promise.all(ledgers.map((ledger) => ledger.close()));
      }
    });
  });
}

describe('openQuotaLedger: what it refuses', () => {
  it('refuses memory: (one process) and a schema that is not an identifier, naming the fix', async () => {
    await expect(openQuotaLedger('memory:')).rejects.toThrow(
      "openQuotaLedger: a memory: store lives in one process; count in it with @bridle/core's MemoryQuotaLedger.",
    );
    await expect(openQuotaLedger(`${POSTGRES_URL}?schema=a;drop`)).rejects.toThrow('is not a plain identifier');
  });
});
