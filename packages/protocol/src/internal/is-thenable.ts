/** True for a promise or any object or function with a callable `then` (what `await` would wait for). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
