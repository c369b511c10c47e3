import type { RunsOverview } from '@bridle/protocol';
import { eventOf, fieldOf, type MemoryRow, TapeRow } from './memory-row';
import type { RunRow } from './plan-append';

/** At most this many tools in `slowestTools`. */
export const SLOWEST_TOOLS = 10;

/** The hour (`2025-01-31T12:00:00.000Z`) of a canonical ISO time. */
export const hourOf = (time: string): string => `${time.slice(0, 13)}:00:00.000Z`;

/** The nearest-rank percentile of sorted values: the smallest value at or above that share of them. */
export function nearestRank(sorted: readonly number[], share: number): number | undefined {
  return sorted[Math.ceil(share * sorted.length) - 1];
}

const byKeys = (a: string[], b: string[]) => {
  for (let index = 0; index < a.length; index++) {
    const [left, right] = [a[index] as string, b[index] as string];
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
};

/** The first `run_start` of a journal, parsed (it tells whether the run is a sub-agent's). */
function firstStart(journal: readonly MemoryRow[]): { parent?: unknown } | undefined {
  for (const row of journal) {
    if (row instanceof TapeRow) {
      if (row.type === 'run_start') return { parent: fieldOf(row, 'parent') };
      continue;
    }
    const event = eventOf(row) as { type?: string; parent?: unknown };
    if (event.type === 'run_start') return event;
  }
  return undefined;
}

/**
 * `runsOverview` of the memory store: the same numbers the SQL stores' aggregates give, computed over its
 * rows (and, for the tools, its `tool_end` events).
 */
export function memoryOverview(
  runs: readonly { row: RunRow; journal: readonly MemoryRow[] }[],
  window: { since: string; until?: string },
): RunsOverview {
  const inWindow = runs.filter(
    ({ row }) => row.createdAt >= window.since && (window.until === undefined || row.createdAt < window.until),
  );
  const topLevel = inWindow.filter(({ journal }) => firstStart(journal)?.parent === undefined).map(({ row }) => row);

  const hours = new Map<string, { hour: string; status: string; runs: number }>();
  for (const row of topLevel) {
    const hour = hourOf(row.createdAt);
    const key = `${hour}\u0000${row.status}`;
    const entry = hours.get(key) ?? { hour, status: row.status, runs: 0 };
    entry.runs += 1;
    hours.set(key, entry);
  }

  const durations = topLevel
    .map((row) => row.durationMs)
    .filter((value): value is number => typeof value === 'number')
    .sort((a, b) => a - b);
  const p50Ms = nearestRank(durations, 0.5);
  const p95Ms = nearestRank(durations, 0.95);

  const days = new Map<string, RunsOverview['usagePerDay'][number]>();
  for (const row of topLevel) {
    const day = row.createdAt.slice(0, 10);
    const model = row.model ?? '';
    const key = `${day}\u0000${model}`;
    const entry = days.get(key) ?? { day, model, runs: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    entry.runs += 1;
    entry.inputTokens += row.usage?.inputTokens ?? 0;
    entry.outputTokens += row.usage?.outputTokens ?? 0;
    entry.costUsd += row.usage?.costUsd ?? 0;
    days.set(key, entry);
  }

  const tools = new Map<string, { name: string; calls: number; errors: number; totalMs: number; maxMs: number }>();
  for (const { journal } of inWindow) {
    for (const row of journal) {
      // Only tool_end rows are read: a copy knows its type, text is searched for it first.
      if (row instanceof TapeRow ? row.type !== 'tool_end' : !row.json.includes('"tool_end"')) continue;
      const event = eventOf(row) as { type?: string; name?: string; durationMs?: number; isError?: unknown };
      if (event.type !== 'tool_end' || typeof event.name !== 'string') continue;
      const entry = tools.get(event.name) ?? { name: event.name, calls: 0, errors: 0, totalMs: 0, maxMs: 0 };
      const ms = typeof event.durationMs === 'number' ? event.durationMs : 0;
      entry.calls += 1;
      if (event.isError === true) entry.errors += 1;
      entry.totalMs += ms;
      entry.maxMs = Math.max(entry.maxMs, ms);
      tools.set(event.name, entry);
    }
  }

  return {
    runsPerHour: [...hours.values()].sort((a, b) => byKeys([a.hour, a.status], [b.hour, b.status])),
    duration: {
      runs: durations.length,
      ...(p50Ms === undefined ? {} : { p50Ms }),
      ...(p95Ms === undefined ? {} : { p95Ms }),
    },
    usagePerDay: [...days.values()].sort((a, b) => byKeys([a.day, a.model], [b.day, b.model])),
    slowestTools: [...tools.values()]
      .map(({ name, calls, errors, totalMs, maxMs }) => ({ name, calls, errors, meanMs: totalMs / calls, maxMs }))
      .sort((a, b) => (a.meanMs !== b.meanMs ? b.meanMs - a.meanMs : byKeys([a.name], [b.name])))
      .slice(0, SLOWEST_TOOLS),
  };
}
