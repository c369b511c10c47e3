import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonlSink } from '../src/jsonl-sink';
import { sampleRun } from './test-events';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridle-events-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('jsonlSink', () => {
  it('appends one JSON line per event and flushes on close', async () => {
    const path = join(dir, 'run.jsonl');
    await writeFile(path, '{"earlier":true}\n');
    const sink = jsonlSink(path);
    for (const event of sampleRun) sink.onEvent(event);
    await sink.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual([{ earlier: true }, ...sampleRun]);
    expect(sink.dropped).toBe(0);
  });

  it('ignores events after close and returns the same promise twice', async () => {
    const path = join(dir, 'run.jsonl');
    const sink = jsonlSink(path);
    sink.onEvent(sampleRun[0]!);
    const closing = sink.close();
    expect(sink.close()).toBe(closing);
    sink.onEvent(sampleRun[1]!);
    await closing;
    expect(await readFile(path, 'utf8')).toBe(`${JSON.stringify(sampleRun[0])}\n`);
  });

  it('reports an unopenable file to onError and never throws into the run', async () => {
    const errors: unknown[] = [];
    const sink = jsonlSink(join(dir, 'missing', 'run.jsonl'), { onError: (error) => errors.push(error) });
    expect(() => sink.onEvent(sampleRun[0]!)).not.toThrow();
    await sink.close();
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOENT');
    sink.onEvent(sampleRun[1]!);
  });

  it('rejects close() with the error when there is no onError', async () => {
    const sink = jsonlSink(join(dir, 'missing', 'run.jsonl'));
    sink.onEvent(sampleRun[0]!);
    await expect(sink.close()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes values JSON cannot hold instead of losing the event', async () => {
    const path = join(dir, 'run.jsonl');
    const sink = jsonlSink(path);
    const circular: Record<string, unknown> = { big: 10n };
    circular.self = circular;
    sink.onEvent({ ...sampleRun[5]!, arguments: circular } as never);
    await sink.close();
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ arguments: { big: '10', self: '[Circular]' } });
  });

  it('drops events once too much waits to be written, and says so once', async () => {
    const path = join(dir, 'run.jsonl');
    const errors: string[] = [];
    const sink = jsonlSink(path, { maxBufferedBytes: 1, onError: (error) => errors.push((error as Error).message) });
    for (const event of sampleRun.slice(0, 4)) sink.onEvent(event);
    await sink.close();
    // The first write goes to the stream; then more than 1 byte waits, so the other three are dropped.
    expect(sink.dropped).toBe(3);
    expect(errors).toEqual([`jsonlSink(${path}): more than 1 bytes waiting to be written; dropping events`]);
    expect(await readFile(path, 'utf8')).toBe(`${JSON.stringify(sampleRun[0])}\n`);
  });
});
