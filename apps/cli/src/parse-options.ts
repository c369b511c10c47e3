import { InvalidArgumentError } from 'commander';

/** A commander argument parser for a positive safe integer (`--max-steps 5`). */
export function positiveInteger(value: string): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError(`expected a positive integer, got "${value}".`);
  return number;
}

/** A commander argument parser for a non-negative safe integer (`--retries 0`). */
export function nonNegativeInteger(value: string): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}".`);
  return number;
}

/** A commander argument parser for an amount of US dollars (`--max-cost 0.50`): positive, finite. */
export function dollars(value: string): number {
  const amount = /^\$?\d+(\.\d+)?$/.test(value.trim()) ? Number(value.trim().replace('$', '')) : Number.NaN;
  if (!Number.isFinite(amount) || amount <= 0)
    throw new InvalidArgumentError(`expected a positive amount of US dollars such as 0.50, got "${value}".`);
  return amount;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** setTimeout's largest delay. */
const MAX_DURATION_MS = 2_147_483_647;

/**
 * A commander argument parser for a duration: `500ms`, `30s`, `2m`, `1h`, or a plain number of
 * seconds (`30` = 30 s). Returns milliseconds (a positive integer, at most about 24.8 days).
 */
export function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match ? Math.round(Number(match[1]) * (UNITS[match[2] ?? 's'] as number)) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1 || ms > MAX_DURATION_MS) {
    throw new InvalidArgumentError(`expected a duration such as 30s, 500ms, 2m or 90 (seconds), got "${value}".`);
  }
  return ms;
}

/** A commander parser that collects a repeatable option's values in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
