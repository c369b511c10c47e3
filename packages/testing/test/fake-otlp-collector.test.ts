import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOtlpCollector, fakeOtlpCollector } from '../src/fake-otlp-collector';

let collector: FakeOtlpCollector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

const body = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeSpans: [
        {
          spans: [
            {
              name: 'child',
              traceId: 't1',
              spanId: 's2',
              parentSpanId: 's1',
              kind: 3,
              attributes: [
                { key: 'n', value: { intValue: '7' } },
                { key: 'b', value: { boolValue: true } },
                { key: 'list', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
              ],
              status: { code: 2, message: 'failed' },
            },
          ],
        },
      ],
    },
  ],
};

describe('fakeOtlpCollector', () => {
  it('decodes the spans of an OTLP/HTTP JSON POST and answers 200', async () => {
    collector = await fakeOtlpCollector();
    const response = await fetch(`${collector.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(await collector.waitForSpans(1)).toEqual([
      {
        name: 'child',
        traceId: 't1',
        spanId: 's2',
        parentSpanId: 's1',
        kind: 3,
        attributes: { n: 7, b: true, list: ['stop'] },
        status: { code: 2, message: 'failed' },
        resource: { 'service.name': 'svc' },
      },
    ]);
    expect(collector.requests).toHaveLength(1);
    expect(collector.requests[0]?.path).toBe('/v1/traces');
  });

  it('answers 404 elsewhere and rejects a wait that is never met', async () => {
    collector = await fakeOtlpCollector();
    expect((await fetch(`${collector.url}/v1/logs`, { method: 'POST', body: '{}' })).status).toBe(404);
    await expect(collector.waitForSpans(1, 50)).rejects.toThrow('0 span(s) after 50 ms, expected 1');
  });
});
