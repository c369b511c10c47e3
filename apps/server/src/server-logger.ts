import type { FastifyServerOptions } from 'fastify';
import pinoPretty from 'pino-pretty';

/** Where logs go: a stream that may be a terminal. */
export interface LogDestination {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * The default logger: at `LOG_LEVEL` (default `info`), one JSON line per entry when `destination` (default
 * stdout) is not a terminal, and human-readable lines (pino-pretty; colours unless `NO_COLOR` is set)
 * when it is one.
 */
export function defaultLogger(
  env: Readonly<Record<string, string | undefined>>,
  destination: LogDestination = process.stdout,
): FastifyServerOptions['logger'] {
  const level = env.LOG_LEVEL?.trim() || 'info';
  if (!destination.isTTY) return { level, ...(destination === process.stdout ? {} : { stream: destination }) };
  const stream = pinoPretty({
    destination: destination as NodeJS.WritableStream,
    colorize: env.NO_COLOR === undefined,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return { level, stream };
}
