import type { RunSignal, RunSignalChannel } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import type { Redis } from 'ioredis';
import { openRedis } from './redis-connection';

/** A run signal as it travels on the channel. */
interface Envelope {
  runId: string;
  signal: RunSignal;
}

function readEnvelope(text: string): Envelope | undefined {
  try {
    const value = JSON.parse(text) as Partial<Envelope>;
    const signal = value.signal as Partial<RunSignal> | undefined;
    if (typeof value.runId !== 'string' || typeof signal?.id !== 'string') return undefined;
    if (signal.by !== undefined && typeof signal.by !== 'string') return undefined;
    if (signal.type === 'cancel' || (signal.type === 'input' && typeof signal.content === 'string'))
      return value as Envelope;
  } catch {
    // Not a signal of ours.
  }
  return undefined;
}

/**
 * Run signals over Redis pub/sub on one channel of the deployment (`<prefix>:bridle-runs:run-signals`):
 * `send` publishes on `publisher`; the first `listen` opens a subscriber connection (Redis needs one of its
 * own), which `close()` disconnects. A signal published while no worker listens for its run is lost.
 */
export function redisSignals(url: string, channel: string, publisher: Redis): RunSignalChannel & { close(): void } {
  const listeners = new Map<string, Set<(signal: RunSignal) => void>>();
  let subscriber: Promise<Redis> | undefined;
  const subscribe = async () => {
    const connection = openRedis(url);
    connection.on('error', () => {});
    connection.on('message', (from: string, text: string) => {
      if (from !== channel) return;
      const envelope = readEnvelope(text);
      if (!envelope) return;
      for (const listener of [...(listeners.get(envelope.runId) ?? [])]) listener(envelope.signal);
    });
    await connection.subscribe(channel);
    return connection;
  };
  return {
    async sendRunSignal(runId, signal) {
      const envelope = { runId, signal };
      if (!readEnvelope(JSON.stringify(envelope)))
        throw new ConfigError(
          "sendRunSignal: a signal is { type: 'input', id, content, by? } or { type: 'cancel', id, by? }",
        );
      await publisher.publish(channel, JSON.stringify(envelope));
    },
    async listenRunSignals(runId, listener) {
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      try {
        subscriber ??= subscribe();
        await subscriber;
      } catch (error) {
        subscriber = undefined;
        set.delete(listener);
        throw error;
      }
      return () => {
        const current = listeners.get(runId);
        current?.delete(listener);
        if (current?.size === 0) listeners.delete(runId);
      };
    },
    close() {
      listeners.clear();
      void subscriber?.then(
        (connection) => connection.disconnect(),
        () => {},
      );
      subscriber = undefined;
    },
  };
}
