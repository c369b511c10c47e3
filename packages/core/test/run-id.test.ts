// Run ids: a new run's id is a time-ordered UUID (version 7), so ids of runs made in different milliseconds
// sort by creation; ids given by callers, such as the random (version 4) ids of older runs, still work.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { v7 } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newRunId, resumeRun, runAgent } from '../src/index';
import { runIdOf } from '../src/new-run-id';
import { call } from './helpers';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('newRunId', () => {
  it('makes version 7 UUIDs whose first 48 bits are the creation time in ms', () => {
    const now = Date.UTC(2026, 11, 7, 20, 0, 0, 123);
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const id = newRunId();
    expect(id).toMatch(V7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(now);
  });

  it('ids made in later milliseconds sort after earlier ones; ids of one millisecond all differ', () => {
    const start = Date.UTC(2026, 11, 7, 20, 0, 0, 0);
    let now = start;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const made: string[] = [];
    for (let ms = 0; ms < 50; ms += 1) {
      now = start + ms * 7;
      made.push(newRunId());
    }
    expect([...made].sort()).toEqual(made);
    now = start;
    const sameMs = Array.from({ length: 1000 }, () => newRunId());
    expect(new Set(sameMs).size).toBe(1000);
    // The bits after the time are random, not a per-process counter: ids of one millisecond are not made in order.
    expect([...sameMs].sort()).not.toEqual(sameMs);
  });
});

describe('runIdOf', () => {
  it('writes the id uuid v7({ msecs, random }) makes of the same bytes (seed 35: 2000 cases)', () => {
    let seed = 35;
    const next = () => {
      // xorshift32: fixed, reproducible bytes and times.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const bytes = new Uint8Array(64);
    const times = [0, 1, 0xff, 0x1_0000_0000, Date.UTC(2026, 11, 8), 2 ** 48 - 1];
    for (let index = 0; index < 2000; index++) {
      for (let at = 0; at < bytes.length; at++) bytes[at] = next() & 0xff;
      if (index % 50 === 0) bytes.fill(index % 100 === 0 ? 0 : 0xff);
      // Fixed edge times, and times of this decade.
      const msecs = index % 2 === 0 ? (times[(index / 2) % times.length] as number) : Date.UTC(2026, 0, 1) + next();
      const offset = (index * 16) % 48;
      const expected = v7({ msecs, random: bytes.subarray(offset, offset + 16) });
      expect(runIdOf(msecs, bytes, offset)).toBe(expected);
      expect(expected).toMatch(V7);
    }
  });

  it('a later millisecond writes its own time part (the cached one is per millisecond)', () => {
    const random = new Uint8Array(16).fill(0xab);
    const first = runIdOf(Date.UTC(2026, 11, 8, 0, 0, 0, 1), random, 0);
    const second = runIdOf(Date.UTC(2026, 11, 8, 0, 0, 0, 2), random, 0);
    expect(first).toBe(v7({ msecs: Date.UTC(2026, 11, 8, 0, 0, 0, 1), random }));
    expect(second).toBe(v7({ msecs: Date.UTC(2026, 11, 8, 0, 0, 0, 2), random }));
    expect(second > first).toBe(true);
  });
});

describe('run ids of runAgent', () => {
  it('a run without a given runId gets a version 7 id; runs made later sort after', async () => {
    const start = Date.now();
    let now = start;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      now = start + index * 1000;
      const result = await runAgent({ model: scriptedModel([{ content: 'hi' }]), prompt: 'hello' });
      ids.push(result.runId);
    }
    for (const id of ids) expect(id).toMatch(V7);
    expect([...ids].sort()).toEqual(ids);
  });

  it('an older run with a random (version 4) id journals, pauses and resumes in a SQLite store', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-run-id-'));
    const store = await openStore(`sqlite:${path.join(folder, 'runs.db')}`);
    try {
      const runId = randomUUID();
      const rm: Tool = {
        name: 'rm',
        description: 'rm',
        parameters: { type: 'object' },
        requiresApproval: true,
        execute: () => 'removed',
      };
      const first = await runAgent({
        model: scriptedModel([{ content: 'working', toolCalls: [call('a', 'rm', { path: 'x' })] }]),
        tools: [rm],
        prompt: 'clean up',
        approve: () => 'ask',
        store,
        runId,
      });
      expect(first).toMatchObject({ status: 'awaiting_approval', runId });
      const result = await resumeRun({
        model: scriptedModel([{ content: 'done' }]),
        tools: [rm],
        store,
        runId,
        approvals: { a: true },
      });
      expect(result).toMatchObject({ status: 'completed', runId });
      expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done' });
      expect(await store.readRun(runId)).toMatchObject({ runId, status: 'completed' });
      expect((await store.listRuns({ limit: 10 })).map((run) => run.runId)).toEqual([runId]);
    } finally {
      await store.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
