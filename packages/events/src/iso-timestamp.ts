let cachedMinute = Number.NaN;
let cachedPrefix = '';
let lastMs = Number.NaN;
let lastText = '';

/**
 * `new Date(ms).toISOString()`, about ten times faster: `toISOString` costs around a microsecond, and
 * emit is on the hot path. The `YYYY-MM-DDTHH:MM:` prefix is cached per minute; seconds and milliseconds
 * are appended. For epoch milliseconds in years 0000-9999 (integers).
 */
export function isoTimestamp(ms: number): string {
  // Events of a step mostly share their millisecond: the same string then (stores compare it at once).
  if (ms === lastMs) return lastText;
  const minute = Math.floor(ms / 60_000);
  if (minute !== cachedMinute) {
    cachedMinute = minute;
    cachedPrefix = new Date(minute * 60_000).toISOString().slice(0, 17);
  }
  const withinMinute = ms - minute * 60_000;
  const seconds = Math.floor(withinMinute / 1000);
  const millis = withinMinute - seconds * 1000;
  lastMs = ms;
  lastText = `${cachedPrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  return lastText;
}
