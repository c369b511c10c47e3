import type { RunSignal } from '@bridle/protocol';
import { StoreError } from './store-error';

type Listener = (signal: RunSignal) => void;

/**
 * The listeners of one store in this process, by run id: what `listenRunSignals` registers and what a signal
 * that reached the process (sent here, or from another process through the database) is handed to.
 */
export class SignalHub {
  // A run's one listener as it is (the common case: a Set per run costs measurably), or a Set of several.
  readonly #listeners = new Map<string, Listener | Set<Listener>>();

  /** Registers `listener` for run `runId`; returns the function that removes it. */
  add(runId: string, listener: Listener): () => void {
    const current = this.#listeners.get(runId);
    if (current === undefined) this.#listeners.set(runId, listener);
    else if (current instanceof Set) current.add(listener);
    else if (current !== listener) this.#listeners.set(runId, new Set([current, listener]));
    return () => this.#remove(runId, listener);
  }

  #remove(runId: string, listener: Listener): void {
    const current = this.#listeners.get(runId);
    if (current === listener) this.#listeners.delete(runId);
    else if (current instanceof Set && current.delete(listener) && current.size === 0) this.#listeners.delete(runId);
  }

  /** Hands `signal` to every listener of run `runId` (a throwing listener does not stop the others). */
  dispatch(runId: string, signal: RunSignal): void {
    const current = this.#listeners.get(runId);
    if (current === undefined) return;
    for (const listener of current instanceof Set ? [...current] : [current]) {
      try {
        listener(signal);
      } catch {
        // A listener is the run's inbox, which never throws; nothing of another listener depends on it.
      }
    }
  }

  /** True while some run of this process listens. */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** The run ids listened for now. */
  runIds(): string[] {
    return [...this.#listeners.keys()];
  }

  clear(): void {
    this.#listeners.clear();
  }
}

/**
 * Checks a signal given to `sendRunSignal`; returns it as plain JSON data (only the known fields), or throws
 * `StoreError` (`invalid_input`) naming the problem.
 */
export function checkSignal(signal: RunSignal): RunSignal {
  const value = signal as Partial<RunSignal> | null;
  if (typeof value !== 'object' || value === null || typeof value.id !== 'string' || value.id === '')
    throw invalid('sendRunSignal: a signal needs a string id');
  if (value.by !== undefined && typeof value.by !== 'string') throw invalid('sendRunSignal: by must be a string');
  const by = value.by === undefined ? {} : { by: value.by };
  if (value.type === 'cancel') return { type: 'cancel', id: value.id, ...by };
  if (value.type === 'input' && typeof (value as { content?: unknown }).content === 'string')
    return { type: 'input', id: value.id, content: (value as { content: string }).content, ...by };
  throw invalid("sendRunSignal: a signal is { type: 'input', id, content, by? } or { type: 'cancel', id, by? }");
}

function invalid(message: string): StoreError {
  return new StoreError('invalid_input', message);
}
