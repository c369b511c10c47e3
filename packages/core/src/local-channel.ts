import type { RunSignal, RunSignalChannel } from '@bridle/protocol';

/**
 * The in-process channel of one `streamAgent` run: signals sent before the run listens (while its options are
 * checked, or between two segments) wait for it; every listener gets them, whatever run id it listens for.
 */
export class LocalChannel implements RunSignalChannel {
  readonly #waiting: RunSignal[] = [];
  readonly #listeners = new Set<(signal: RunSignal) => void>();

  /** Sends at once to the listening run, or keeps the signal until a run listens. */
  send(signal: RunSignal): void {
    if (this.#listeners.size === 0) {
      this.#waiting.push(signal);
      return;
    }
    for (const listener of this.#listeners) listener(signal);
  }

  sendRunSignal(_runId: string, signal: RunSignal): Promise<void> {
    this.send(signal);
    return Promise.resolve();
  }

  listenRunSignals(_runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    this.#listeners.add(listener);
    for (const signal of this.#waiting.splice(0)) listener(signal);
    return Promise.resolve(() => {
      this.#listeners.delete(listener);
    });
  }
}
