/** A lease this process renews. */
export interface Renewable {
  renewNow(): void;
}

interface Group {
  readonly members: Set<Renewable>;
  readonly timer: ReturnType<typeof setInterval>;
  /** The `setInterval` and `clearInterval` the timer was made with (a test's fake timers, say). */
  readonly madeWith: typeof setInterval;
  readonly clear: typeof clearInterval;
}

const groups = new Map<number, Group>();

function newGroup(intervalMs: number, members: Set<Renewable>): Group {
  const clear = clearInterval;
  const timer = setInterval(() => {
    if (members.size === 0) {
      clear(timer);
      if (groups.get(intervalMs)?.timer === timer) groups.delete(intervalMs);
      return;
    }
    for (const member of members) member.renewNow();
  }, intervalMs);
  // A lease never keeps a process alive on its own.
  timer.unref?.();
  return { members, timer, madeWith: setInterval, clear };
}

/**
 * Renews `member` every `intervalMs` until the returned function is called. One timer serves every lease renewed
 * at that interval (a timer set and cleared per run costs a measurable part of a one-step run); it stops at the
 * first tick that finds none left, and never keeps the process alive. The first renewal comes at most
 * `intervalMs` after this call, as with a timer of its own. A timer made with other timer functions than the
 * global ones of now (fake timers installed or removed since) is replaced, its leases kept.
 */
export function renewEvery(intervalMs: number, member: Renewable): () => void {
  let group = groups.get(intervalMs);
  if (group === undefined || group.madeWith !== setInterval) {
    if (group !== undefined) group.clear(group.timer);
    group = newGroup(intervalMs, group?.members ?? new Set());
    groups.set(intervalMs, group);
  }
  const { members } = group;
  members.add(member);
  return () => members.delete(member);
}
