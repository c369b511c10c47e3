import { type IncomingMessage, request } from 'node:http';
import type { ReadEventsQuery, RunEvent, Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { afterEach, describe, expect, it } from 'vitest';
import { noteModel, tempStoreUrl } from './durable-helpers';
import { readSseFrames, startTestServer } from './helpers';

const stores: Store[] = [];
const streams: IncomingMessage[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.destroy();
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function open(url: string): Promise<Store> {
  const store = await openStore(url);
  stores.push(store);
  return store;
}

/** Events of run `runId` as another process journals them. */
function eventsOf(runId: string) {
  const at = (sequence: number) => ({
    runId,
    sequence,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
  });
  return {
    start: (sequence: number): RunEvent => ({
      ...at(sequence),
      type: 'run_start',
      model: 'test:elsewhere',
      prompt: 'hi',
    }),
    step: (sequence: number, step: number): RunEvent => ({ ...at(sequence), type: 'model_start', step, attempt: 1 }),
    end: (sequence: number): RunEvent =>
      ({
        ...at(sequence),
        type: 'run_end',
        status: 'completed',
        answer: 'done',
        steps: 1,
        toolCalls: 0,
        usage: { inputTokens: 1, outputTokens: 1 },
        durationMs: 1,
      }) as RunEvent,
  };
}

/** A real store whose journal reads are recorded: what the server asked for, and how many events came back. */
function recording(store: Store) {
  const reads: { method: 'readRun' | 'readEvents'; after?: number; returned: number }[] = [];
  const recorded: Store = {
    appendEvents: (runId, events) => store.appendEvents(runId, events),
    async readRun(runId) {
      const run = await store.readRun(runId);
      reads.push({ method: 'readRun', returned: run?.events.length ?? 0 });
      return run;
    },
    async readEvents(runId: string, query: ReadEventsQuery) {
      const events = (await store.readEvents?.(runId, query)) ?? [];
      reads.push({ method: 'readEvents', after: query.after, returned: events.length });
      return events;
    },
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    close: () => store.close(),
  };
  return { store: recorded, reads };
}

describe('following a run that runs elsewhere (GET /api/runs/:id/events)', () => {
  it('sees the events another store handle appends, reading only what is new each time', async () => {
    const url = await tempStoreUrl();
    const writer = await open(url);
    const { store, reads } = recording(await open(url));
    const e = eventsOf('far-run');
    // A long journal already: following must not read it again on every poll.
    const earlier = [e.start(0), ...Array.from({ length: 300 }, (_, index) => e.step(index + 1, index + 1))];
    await writer.appendEvents('far-run', earlier);
    const server = await startTestServer({ model: noteModel(), store });
    const frames = readSseFrames(await fetch(`${server.url}/api/runs/far-run/events`));
    const polls = () => reads.filter((read) => read.method === 'readEvents').length;
    await expect.poll(polls, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await writer.appendEvents('far-run', [e.step(301, 301), e.step(302, 302)]);
    await expect
      .poll(() => reads.some((read) => read.returned === 2 && read.after === 300), { timeout: 20_000 })
      .toBe(true);
    const seen = polls();
    await expect.poll(polls, { timeout: 20_000 }).toBeGreaterThan(seen + 1);
    await writer.appendEvents('far-run', [e.step(303, 303), e.end(304)]);
    const received = await frames;
    expect(received.map((frame) => Number(frame.id))).toEqual(Array.from({ length: 305 }, (_, index) => index));
    expect(received.at(-1)).toMatchObject({ event: 'run_end', data: { status: 'completed', answer: 'done' } });
    // The journal was read whole once (the replay); each later read asked for what came after the last
    // sequence read, and between them they returned exactly the 4 new events.
    expect(reads.filter((read) => read.method === 'readRun')).toEqual([{ method: 'readRun', returned: 301 }]);
    const later = reads.filter((read) => read.method === 'readEvents');
    expect(later.reduce((sum, read) => sum + read.returned, 0)).toBe(4);
    let last = 300;
    for (const read of later) {
      expect(read.after).toBe(last);
      last += read.returned;
    }
  });

  it('with a store that has no readEvents, still follows (reading the run again)', async () => {
    const url = await tempStoreUrl();
    const writer = await open(url);
    const { store } = recording(await open(url));
    const { readEvents: _none, ...withoutReadEvents } = store;
    const e = eventsOf('old-store-run');
    await writer.appendEvents('old-store-run', [e.start(0)]);
    const server = await startTestServer({ model: noteModel(), store: withoutReadEvents as Store });
    const frames = readSseFrames(await fetch(`${server.url}/api/runs/old-store-run/events`));
    await writer.appendEvents('old-store-run', [e.step(1, 1), e.end(2)]);
    expect((await frames).map((frame) => frame.event)).toEqual(['run_start', 'model_start', 'run_end']);
  });
});

/** Opens `GET /api/runs/:id/events` from `localAddress` (127.0.0.x: another client); resolves at the response head. */
function openStream(base: string, runId: string, localAddress = '127.0.0.1') {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: () => Promise<string> }>(
    (resolve, reject) => {
      const outgoing = request(`${base}/api/runs/${runId}/events`, { localAddress });
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        streams.push(response);
        const body = () =>
          new Promise<string>((done) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
            });
            response.on('end', () => done(text));
          });
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
      outgoing.end();
    },
  );
}

describe('open event streams are bounded', () => {
  async function runningElsewhere() {
    const url = await tempStoreUrl();
    const writer = await open(url);
    const e = eventsOf('busy-run');
    await writer.appendEvents('busy-run', [e.start(0)]);
    return { url, finish: () => writer.appendEvents('busy-run', [e.end(1)]) };
  }

  it('per client address: past BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT a 429 naming it; another client is not held back', async () => {
    const { url } = await runningElsewhere();
    const server = await startTestServer({
      model: noteModel(),
      store: url,
      env: { BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT: '2' },
    });
    expect((await openStream(server.url, 'busy-run')).status).toBe(200);
    const second = await openStream(server.url, 'busy-run');
    expect(second.status).toBe(200);
    const refused = await openStream(server.url, 'busy-run');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(await refused.body()).error).toMatchObject({
      code: 'too_many_streams',
      message:
        'This client already follows 2 runs, the most BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT=2 allows: close a stream (or wait for its run to end) and retry.',
    });
    expect((await openStream(server.url, 'busy-run', '127.0.0.2')).status).toBe(200);
    // A stream that closes gives its place back.
    (streams[1] as IncomingMessage).destroy();
    await expect.poll(async () => (await openStream(server.url, 'busy-run')).status, { timeout: 10_000 }).toBe(200);
  });

  it('in total: past BRIDLE_MAX_EVENT_STREAMS a 503 naming it, whoever asks; a run that ends frees its streams', async () => {
    const { url, finish } = await runningElsewhere();
    const server = await startTestServer({ model: noteModel(), store: url, maxEventStreams: 2 });
    const first = await openStream(server.url, 'busy-run');
    const second = await openStream(server.url, 'busy-run', '127.0.0.2');
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await openStream(server.url, 'busy-run', '127.0.0.3');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(await refused.body()).error).toMatchObject({
      code: 'streams_full',
      message:
        'The server already has 2 event streams open, the most BRIDLE_MAX_EVENT_STREAMS=2 allows: retry shortly.',
    });
    const ended = Promise.all([first.body(), second.body()]);
    await finish();
    await ended;
    const again = await openStream(server.url, 'busy-run', '127.0.0.3');
    expect(again.status).toBe(200);
    expect(await again.body()).toContain('event: run_end');
  });

  it('refuses a bad setting naming it', async () => {
    await expect(() => startTestServer({ env: { BRIDLE_MAX_EVENT_STREAMS: '0' } })).rejects.toThrow(
      'Invalid server setting BRIDLE_MAX_EVENT_STREAMS=0: expected an integer from 1 to',
    );
  });
});
