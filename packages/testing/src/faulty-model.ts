import {
  type Model,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ProviderErrorCode,
} from '@bridle/protocol';

/** What goes wrong on a chosen call. */
export type Fault =
  /** Throws a plain `Error`. */
  | { type: 'throw'; message?: string }
  /** Throws a `ProviderError`; `retryable` defaults by code. */
  | { type: 'provider_error'; code: ProviderErrorCode; retryable?: boolean; retryAfterMs?: number; status?: number }
  /** Resolves to a value that is not a valid `ModelResponse` (default `{ content: 42 }`). */
  | { type: 'malformed'; value?: unknown }
  /** Never resolves until the signal aborts (then rejects with its reason); `ignoreSignal` never settles at all. */
  | { type: 'hang'; ignoreSignal?: boolean }
  /** Waits `ms` (abort-aware) and then answers normally. */
  | { type: 'delay'; ms: number };

/** Faults by 0-based call index, or a function of the call index. */
export type FaultSchedule = Readonly<Record<number, Fault>> | ((callIndex: number) => Fault | undefined);

/** A model wrapping another one, failing on chosen calls. Records every request and the fault applied. */
export interface FaultyModel extends Model {
  readonly requests: ModelRequest[];
  /** The fault applied to each call (undefined where the inner model answered). */
  readonly faults: (Fault | undefined)[];
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function waitForAbort(signal: AbortSignal, ms?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(abortReason(signal));
    }
    function done() {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wraps `inner` so that the calls named in `schedule` fail in the chosen way; other calls go to `inner`
 * (which sees only the calls that were not faulted, so a scripted inner model keeps its own order).
 */
export function faultyModel(inner: Model, schedule: FaultSchedule): FaultyModel {
  const requests: ModelRequest[] = [];
  const faults: (Fault | undefined)[] = [];
  const faultAt = (index: number) => (typeof schedule === 'function' ? schedule(index) : schedule[index]);

  return {
    id: `faulty:${inner.id}`,
    requests,
    faults,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const index = requests.length;
      requests.push({ ...request, signal: request.signal, messages: [...request.messages] });
      const fault = faultAt(index);
      faults.push(fault);
      switch (fault?.type) {
        case undefined:
          return inner.generate(request);
        case 'throw':
          throw new Error(fault.message ?? `faultyModel: scripted failure on call ${index + 1}`);
        case 'provider_error':
          throw new ProviderError({
            code: fault.code,
            message: `faultyModel: scripted ${fault.code} on call ${index + 1}`,
            provider: 'faulty',
            ...(fault.retryable === undefined ? {} : { retryable: fault.retryable }),
            ...(fault.retryAfterMs === undefined ? {} : { retryAfterMs: fault.retryAfterMs }),
            ...(fault.status === undefined ? {} : { status: fault.status }),
          });
        case 'malformed':
          return (fault.value === undefined ? { content: 42 } : fault.value) as ModelResponse;
        case 'hang':
          if (fault.ignoreSignal) return new Promise<never>(() => {});
          await waitForAbort(request.signal);
          throw abortReason(request.signal);
        case 'delay':
          await waitForAbort(request.signal, fault.ms);
          return inner.generate(request);
      }
    },
  };
}
