import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RunLimiter } from '../src/run-limiter';

describe('RunLimiter', () => {
  it('refuses a slot beyond max and gives one again after a release', () => {
    const limiter = new RunLimiter(1);
    const slot = limiter.tryAcquire();
    expect(limiter.tryAcquire()).toBeUndefined();
    slot?.release();
    slot?.release(); // a second release changes nothing
    expect(limiter.active).toBe(0);
    expect(limiter.tryAcquire()).toBeDefined();
  });

  it("holds each tenant to its share of the slots; a release gives the tenant's slot back", () => {
    const limiter = new RunLimiter(3);
    const first = limiter.tryAcquireFor('flood', 2);
    const second = limiter.tryAcquireFor('flood', 2);
    expect(limiter.tryAcquireFor('flood', 2)).toBe('tenant');
    const quiet = limiter.tryAcquireFor('quiet', 2);
    expect(typeof quiet).toBe('object');
    expect(limiter.tryAcquireFor('other', 2)).toBe('full');
    if (typeof first !== 'object' || typeof second !== 'object') throw new Error('expected slots');
    first.release();
    first.release(); // a second release changes nothing
    expect(limiter.active).toBe(2);
    expect(typeof limiter.tryAcquireFor('flood', 2)).toBe('object');
    expect(limiter.tryAcquireFor('flood', 2)).toBe('full');
  });

  it("reuses a connection's signal for its next run only when the run ended without aborting it", () => {
    const limiter = new RunLimiter(4);
    const connection = {};
    const first = limiter.tryAcquire(connection);
    first?.release();
    const second = limiter.tryAcquire(connection);
    expect(second?.signal).toBe(first?.signal);
    second?.abort(new Error('the client disconnected'));
    second?.release();
    const third = limiter.tryAcquire(connection);
    expect(third?.signal).not.toBe(second?.signal);
    expect(third?.signal.aborted).toBe(false);
    // Another connection never gets it.
    third?.release();
    expect(limiter.tryAcquire({})?.signal).not.toBe(third?.signal);
  });

  it('gives two runs of one connection at once (pipelined requests) two signals; aborting one leaves the other', () => {
    const limiter = new RunLimiter(4);
    const connection = {};
    limiter.tryAcquire(connection)?.release();
    const a = limiter.tryAcquire(connection);
    const b = limiter.tryAcquire(connection);
    expect(a?.signal).not.toBe(b?.signal);
    a?.abort(new Error('too slow'));
    expect(b?.signal.aborted).toBe(false);
  });

  it("aborts every running slot on abortAll, a reused connection's signal too", () => {
    const limiter = new RunLimiter(4);
    const connection = {};
    limiter.tryAcquire(connection)?.release();
    const reused = limiter.tryAcquire(connection);
    const plain = limiter.tryAcquire();
    limiter.abortAll(new Error('shutting down'));
    expect(reused?.signal.aborted).toBe(true);
    expect(plain?.signal.aborted).toBe(true);
    expect(getEventListeners(reused?.signal as AbortSignal, 'abort')).toHaveLength(0);
  });
});
