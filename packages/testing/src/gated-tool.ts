import type { Tool } from '@bridle/protocol';

/** What {@link gatedTool} returns: the tool, and the handles a test holds it by. */
export interface GatedTool {
  tool: Tool;
  /** Lets every call that waits (and every later one) return `<name> done`. */
  release: () => void;
  /** Settles once a call has started. */
  running: Promise<void>;
  /** One entry per call started, `aborted` once its signal aborted it. */
  calls: { aborted: boolean }[];
}

/**
 * A tool named `name` (default `wait`) whose calls wait until `release()` or until their signal aborts (then
 * they reject with the signal's reason): for tests that steer, cancel or kill a run in the middle of a call.
 */
export function gatedTool(name = 'wait'): GatedTool {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const calls: { aborted: boolean }[] = [];
  const tool: Tool = {
    name,
    description: `${name}: waits until the test releases it`,
    parameters: { type: 'object' },
    execute: async (_args, context) => {
      started();
      const call = { aborted: false };
      calls.push(call);
      await new Promise<void>((resolve, reject) => {
        released.then(resolve);
        const abort = () => {
          call.aborted = true;
          reject(context.signal.reason);
        };
        if (context.signal.aborted) abort();
        else context.signal.addEventListener('abort', abort, { once: true });
      });
      return `${name} done`;
    },
  };
  return { tool, release, running, calls };
}
