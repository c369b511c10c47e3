import { BridleError } from '@bridle/protocol';

const MARKER = Symbol.for('bridle.error.a2aAgent');

/**
 * A remote A2A agent failed a call: unreachable, too slow, too large an answer, a malformed answer, or a task
 * that ended `failed`, `canceled`, `rejected` or waiting for input. Code `a2a_agent_failed`. Thrown by the
 * tool's `execute`, so the run turns it into an error result the model reads (the run goes on).
 */
export class A2AAgentError extends BridleError {
  readonly [MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('a2a_agent_failed', message, options);
    this.name = 'A2AAgentError';
  }
  static override isInstance(value: unknown): value is A2AAgentError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
