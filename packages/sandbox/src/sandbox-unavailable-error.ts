import { ConfigError } from '@bridle/protocol';

const MARKER = Symbol.for('bridle.error.sandbox_unavailable');

/**
 * The sandbox cannot run here (another platform, bubblewrap missing, user namespaces refused). A
 * `ConfigError` (apps exit 2), with a message naming what is missing and the fix. Check with
 * `SandboxUnavailableError.isInstance(value)`.
 */
export class SandboxUnavailableError extends ConfigError {
  readonly [MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SandboxUnavailableError';
  }
  static override isInstance(value: unknown): value is SandboxUnavailableError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
