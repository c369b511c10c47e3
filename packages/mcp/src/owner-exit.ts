/** Process groups this process started and has not ended yet. */
const groups = new Set<number>();
let installed = false;

function killAll(): void {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
  groups.clear();
}

/** Sends `signal` to the process group `pid` leads; false when it is gone already. Never throws. */
export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills the group when this (owning) process exits, however it exits normally (`exit` event: end of
 * the event loop, `process.exit`, an uncaught error). A process killed by a signal it does not handle
 * runs no code: the server then sees its stdin close, which MCP servers take as the end.
 */
export function killGroupOnExit(pid: number): void {
  if (!installed) {
    process.on('exit', killAll);
    installed = true;
  }
  groups.add(pid);
}

/** The group ended (or was killed) on purpose: forget it. */
export function forgetGroup(pid: number): void {
  groups.delete(pid);
}
