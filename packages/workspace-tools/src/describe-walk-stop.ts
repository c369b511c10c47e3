import type { WalkStop } from './workspace-operations';

/**
 * The line a tool adds when its walk was cut short: which bound, and where, so the model knows what was
 * not searched instead of taking silence for "no match".
 */
export function describeWalkStop(
  stop: WalkStop,
  bounds: { maxEntries: number; maxDepth: number; timeBudgetMs: number },
): string {
  switch (stop.reason) {
    case 'entries':
      return `[stopped after visiting ${bounds.maxEntries} entries, at "${stop.at}": it and the entries after it (in name order) were not searched; use a narrower pattern or path]`;
    case 'time':
      return `[stopped after ${bounds.timeBudgetMs} ms, at "${stop.at}": it and the entries after it (in name order) were not searched; use a narrower pattern or path]`;
    default:
      return `[directories more than ${bounds.maxDepth} levels deep were not searched (the first: "${stop.at}")]`;
  }
}
