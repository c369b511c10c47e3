import { ConfigError, describeValue, type Tool } from '@bridle/protocol';
import { readArguments, readString } from './read-arguments';

/** Options of {@link clockTool}. */
export interface ClockToolOptions {
  /** IANA time zone used when the model names none (case-insensitive, e.g. `Europe/Paris`). Default `UTC`. */
  timeZone?: string;
  /** The clock, for tests: returns the current time. Default `() => new Date()`. */
  now?: () => Date;
}

/** Arguments of the clock tool. */
export interface ClockArguments {
  timeZone?: string;
}

/** What the clock tool returns: the same instant in the zone and in UTC. */
export interface ClockResult {
  /** Local time with offset, e.g. `2024-03-10T09:30:00.000-04:00`. */
  iso: string;
  /** The same instant in UTC, e.g. `2024-03-10T13:30:00.000Z`. */
  utc: string;
  /** The zone name, e.g. `America/New_York` (canonical case; aliases such as `Asia/Kolkata` kept as given). */
  timeZone: string;
  /** Offset from UTC, `+HH:MM` or `-HH:MM`. */
  utcOffset: string;
  /** English weekday name, e.g. `Sunday`. */
  weekday: string;
  /** Milliseconds since the Unix epoch. */
  unixMs: number;
}

const MAX_TIME_ZONE_LENGTH = 64;

/**
 * A tool named `clock` that tells the current time in an IANA time zone (default UTC). Read-only.
 * An unknown zone in the options throws {@link ConfigError} at creation; an unknown zone in the
 * arguments throws an `Error` that names it.
 */
export function clockTool(options: ClockToolOptions = {}): Tool<ClockArguments, ClockResult> {
  const defaultZone = options.timeZone ?? 'UTC';
  if (typeof defaultZone !== 'string' || resolveTimeZone(defaultZone) === undefined) {
    throw new ConfigError(
      `clockTool: timeZone ${describeValue(defaultZone)} is not a known IANA time zone; use a name like "UTC" or "Europe/Paris"`,
    );
  }
  const now = options.now ?? (() => new Date());
  return {
    name: 'clock',
    description: 'Get the current date and time. Optionally name an IANA time zone such as "Europe/Paris".',
    parameters: {
      type: 'object',
      properties: {
        timeZone: {
          type: 'string',
          maxLength: MAX_TIME_ZONE_LENGTH,
          description: `IANA time zone, e.g. "America/New_York". Default "${resolveTimeZone(defaultZone)}".`,
        },
      },
      additionalProperties: false,
    },
    readOnly: true,
    execute(args) {
      const record = readArguments(args ?? {}, 'clock', ['timeZone']);
      const requested = readString(record, 'timeZone', 'clock', true) ?? defaultZone;
      const timeZone = resolveTimeZone(requested);
      if (timeZone === undefined) {
        throw new Error(
          `clock: ${describeValue(requested)} is not a known IANA time zone; use a name like "UTC", "Europe/Paris" or "America/New_York"`,
        );
      }
      return describeInstant(now(), timeZone);
    },
  };
}

/**
 * The name to report for an IANA zone, or `undefined` when Intl does not know it. ICU maps some current
 * names to legacy ones (`Asia/Kolkata` to `Asia/Calcutta`): those keep the caller's spelling, while a
 * name that differs only in case (`america/new_york`) gets its canonical case.
 */
function resolveTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH) return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

function describeInstant(date: Date, timeZone: string): ClockResult {
  const time = date.getTime();
  if (!Number.isFinite(time)) throw new Error('clock: the clock returned an invalid date');
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'long',
    timeZoneName: 'longOffset',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((entry) => entry.type === type)?.value ?? '';
  // longOffset reads "GMT+05:30", or just "GMT" at offset zero.
  const utcOffset = part('timeZoneName').replace('GMT', '') || '+00:00';
  const milliseconds = String(date.getUTCMilliseconds()).padStart(3, '0');
  const iso = `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}.${milliseconds}${utcOffset}`;
  return { iso, utc: date.toISOString(), timeZone, utcOffset, weekday: part('weekday'), unixMs: time };
}
