/**
 * A message to a running run from outside its process: steering input, or a cancel. `id` is the sender's
 * random id: a run that hears one signal on two channels (its store's and a queue's) acts on it once.
 */
export type RunSignal =
  | { type: 'input'; id: string; content: string; by?: string }
  | { type: 'cancel'; id: string; by?: string };

/**
 * A way to reach a running run wherever it runs (another server process, a queue worker). A store may be one
 * (Postgres: `LISTEN/NOTIFY`; SQLite: a signals table that listeners poll; memory: in process); a queue is
 * another (Redis pub/sub). A signal sent while nobody listens for its run is lost: senders check the run's
 * status first, and a run that is not running keeps its input in its journal instead.
 */
export interface RunSignalChannel {
  /** Sends `signal` to whoever listens for run `runId`; resolves once sent (not once acted on). */
  sendRunSignal(runId: string, signal: RunSignal): Promise<void>;
  /**
   * Calls `listener` with every signal sent to run `runId` from now on (in the order sent, per sender).
   * Resolves once listening, to the function that stops (never throws).
   */
  listenRunSignals(runId: string, listener: (signal: RunSignal) => void): Promise<() => void>;
}
