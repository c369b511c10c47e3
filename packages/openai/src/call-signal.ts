/**
 * A signal for one SDK call that follows `signal`, and `release()` to unlink it. The openai SDK adds an abort
 * listener to the signal it is given and never removes it, so a long-lived caller signal would collect one
 * listener (and a warning after ten) per call; the SDK gets this short-lived signal instead.
 */
export function callSignal(signal: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const forward = () => controller.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', forward) };
}
