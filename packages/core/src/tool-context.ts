import type { ToolContext } from '@bridle/protocol';
import { RUN_LINK, type RunLink } from './run-link';
import type { CallSignal } from './run-scope';

/**
 * The context one tool call's `execute` receives. A class rather than an object literal with a getter:
 * every call makes one, and instances of one class share a shape and their `signal` accessor.
 */
export class CallContext implements ToolContext {
  readonly callId: string;
  readonly runId: string;
  readonly idempotencyKey: string;
  readonly [RUN_LINK]: RunLink;
  readonly #call: CallSignal;

  constructor(callId: string, runId: string, call: CallSignal, link: RunLink) {
    this.callId = callId;
    this.runId = runId;
    this.idempotencyKey = `${runId}:${callId}`;
    this[RUN_LINK] = link;
    this.#call = call;
  }

  /** The call's own signal, created on first read (most tools never look). */
  get signal(): AbortSignal {
    return this.#call.signal;
  }
}
