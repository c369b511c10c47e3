import type { Message } from '@bridle/protocol';

/** Where the newest groups that fit begin, and what they cost. */
export interface GroupSelection {
  /** Index of the first selected message after `messages[0]`; `messages.length` when none fits. */
  start: number;
  /** Cost of the first message, the fixed overhead and the selected groups. */
  used: number;
  /** Start index and cost of the newest group (for error messages); `start: 0` when there is none. */
  newest: { start: number; cost: number };
}

/**
 * Walks a VALID transcript from its end, one group at a time (an assistant message with its tool results,
 * or a single message), and takes groups while `fixedCost` plus their costs stay within `max`. Stops at the
 * first group that does not fit (the selection is always a contiguous tail). `messages[0]` is never part of
 * a group. `keepNewest` takes the newest group even when it does not fit. Only the messages it walks are
 * measured: the cost is proportional to the selection, not to the transcript.
 */
export function selectNewestGroups(
  messages: readonly Message[],
  costOf: (message: Message, index: number) => number,
  fixedCost: number,
  max: number,
  keepNewest = false,
): GroupSelection {
  let used = fixedCost;
  let start = messages.length;
  const newest = { start: 0, cost: 0 };
  let index = messages.length - 1;
  while (index >= 1) {
    let groupStart = index;
    let cost = 0;
    // In a valid transcript every tool message follows its assistant message, which is never messages[0].
    while ((messages[groupStart] as Message).role === 'tool')
      cost += costOf(messages[groupStart] as Message, groupStart--);
    cost += costOf(messages[groupStart] as Message, groupStart);
    const isNewest = start === messages.length;
    if (isNewest) {
      newest.start = groupStart;
      newest.cost = cost;
    }
    if (used + cost > max && !(isNewest && keepNewest)) break;
    used += cost;
    start = groupStart;
    index = groupStart - 1;
  }
  return { start, used, newest };
}

/** `[messages[0], ...messages.slice(start)]`, the original message objects. */
export function firstAndTail(messages: readonly Message[], start: number): Message[] {
  const selected = new Array<Message>(1 + messages.length - start);
  selected[0] = messages[0] as Message;
  for (let index = start; index < messages.length; index++) selected[1 + index - start] = messages[index] as Message;
  return selected;
}

/** `messages[start]` or `messages[start..end]`, for error messages. */
export function groupRange(start: number, end: number): string {
  return start === end ? `messages[${start}]` : `messages[${start}..${end}]`;
}
