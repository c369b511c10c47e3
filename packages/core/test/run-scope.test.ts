import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Cancelled, RunScope } from '../src/run-scope';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('RunScope', () => {
  it('race settles like the promise while the run goes on', async () => {
    const scope = new RunScope({});
    await expect(scope.race(Promise.resolve(7))).resolves.toBe(7);
    await expect(scope.race(Promise.reject(new Error('no')))).rejects.toThrow('no');
    scope.dispose();
  });

  it('race rejects with Cancelled("aborted") as soon as the caller aborts, even for a promise that never settles', async () => {
    const controller = new AbortController();
    const scope = new RunScope({ signal: controller.signal });
    expect(listeners(controller.signal)).toBe(1);
    const pending = scope.race(new Promise(() => {}));
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toEqual(new Cancelled('aborted'));
    expect(scope.reason).toBe('aborted');
    expect(scope.cause).toEqual(new Error('stop'));
    expect(listeners(controller.signal)).toBe(0);
    scope.dispose();
  });

  it('the deadline cancels with "timeout" and a TimeoutError reason', async () => {
    const scope = new RunScope({ timeoutMs: 5 });
    await expect(scope.race(new Promise(() => {}))).rejects.toEqual(new Cancelled('timeout'));
    expect((scope.cause as Error).name).toBe('TimeoutError');
    scope.dispose();
  });

  it('an already aborted caller signal cancels at once, adding no listener', () => {
    const signal = AbortSignal.abort();
    const scope = new RunScope({ signal, timeoutMs: 1_000 });
    expect(scope.reason).toBe('aborted');
    expect(listeners(signal)).toBe(0);
    scope.dispose();
  });

  it('sleep resolves after the wait, or rejects at once on abort', async () => {
    const controller = new AbortController();
    const scope = new RunScope({ signal: controller.signal });
    await expect(scope.sleep(1)).resolves.toBeUndefined();
    const waiting = scope.sleep(60_000);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(Cancelled);
    scope.dispose();
  });

  it('dispose removes the listener on the caller signal', () => {
    const controller = new AbortController();
    const scope = new RunScope({ signal: controller.signal, timeoutMs: 60_000 });
    scope.dispose();
    expect(listeners(controller.signal)).toBe(0);
    controller.abort();
    expect(scope.reason).toBeUndefined();
  });

  it('a cancel reaches every pending race and linked call signal in the order they came, and no settled or released one', async () => {
    const controller = new AbortController();
    const scope = new RunScope({ signal: controller.signal });
    const told: string[] = [];
    const note = (name: string, promise: Promise<unknown>) =>
      promise.then(
        () => told.push(`${name} settled`),
        (error: unknown) => told.push(`${name} ${error instanceof Cancelled ? error.reason : 'failed'}`),
      );
    const first = note('first', scope.race(Promise.resolve(1)));
    await first;
    const calls = ['a', 'b', 'c'].map((name) => {
      const call = scope.child();
      call.signal.addEventListener('abort', () => told.push(`${name} aborted`));
      return call;
    });
    const second = note('second', scope.race(new Promise(() => {})));
    (calls[0] as ReturnType<RunScope['child']>).release();
    const third = note('third', scope.race(new Promise(() => {})));
    controller.abort('stop');
    await Promise.all([second, third]);
    expect(told).toEqual(['first settled', 'b aborted', 'c aborted', 'second aborted', 'third aborted']);
    scope.dispose();
  });

  it('child signals are created on first access, aborted with the run, and unlinked by release', () => {
    const scope = new RunScope({});
    const first = scope.child();
    const second = scope.child();
    const signal = first.signal;
    expect(first.signal).toBe(signal);
    second.release();
    const late = second.signal; // accessed after release: never linked to the run
    const controller = new AbortController();
    const cancelled = new RunScope({ signal: controller.signal });
    const linked = cancelled.child();
    const linkedSignal = linked.signal;
    controller.abort('why');
    expect(linkedSignal.aborted).toBe(true);
    expect(linkedSignal.reason).toBe('why');
    expect(cancelled.child().signal.aborted).toBe(true);
    expect(signal.aborted).toBe(false);
    expect(late.aborted).toBe(false);
    scope.dispose();
    cancelled.dispose();
  });
});
