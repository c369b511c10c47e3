import type { ProtectedEntries } from './protected-entries';

/** Everything one bwrap invocation needs, already checked. Paths are absolute and real. */
export interface BubblewrapPlan {
  /** The workspace: read-write. */
  root: string;
  /** Where the command starts (the root or a folder inside it). */
  cwd: string;
  /** Folders covered by an empty writable tmpfs (`/tmp`, `$HOME`, `/run`...), before the workspace is mounted. */
  masks: readonly string[];
  protectedEntries: ProtectedEntries;
  network: boolean;
  /** Bash, for the rlimit prologue. */
  bash: string;
  /** Set by rlimits inside the sandbox (`ulimit`); `undefined` leaves one to the control groups. */
  rlimits: { maxProcesses?: number; maxDataBytes?: number; maxFileBytes: number };
  argv: readonly string[];
}

/**
 * The bwrap arguments for a plan: the host's root read-only, a fresh /dev, /proc (own PID namespace) and
 * masks, the workspace read-write, its protected entries read-only or hidden, every namespace unshared
 * (the network unless allowed), no capabilities, no nested user namespaces, a new session (no terminal to
 * inject into), killed with its parent, then a bash prologue that
 * sets the rlimits and runs the command. Order matters: a mount shadows those before it.
 */
export function bubblewrapArguments(plan: BubblewrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    ...(plan.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    '--hostname',
    'bridle-sandbox',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const mask of plan.masks) args.push('--tmpfs', mask);
  args.push('--bind', plan.root, plan.root);
  for (const path of plan.protectedEntries.readOnly) args.push('--ro-bind', path, path);
  for (const path of plan.protectedEntries.hiddenFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of plan.protectedEntries.hiddenDirectories) args.push('--tmpfs', path, '--remount-ro', path);
  // The environment is bwrap's own (the caller spawns it with exactly the command's), never `--setenv`
  // arguments, which any user of the host could read in the process list.
  args.push('--chdir', plan.cwd, '--', plan.bash, '-c', prologue(plan.rlimits), 'bridle-sandbox', ...plan.argv);
  return args;
}

/**
 * Sets the rlimits, then replaces itself with the command. A limit the user's own hard limit already
 * keeps lower cannot be raised and need not be: its error is silenced. Sizes: bash's `-d` is KiB, `-f`
 * blocks of 1,024 bytes.
 */
function prologue(rlimits: BubblewrapPlan['rlimits']): string {
  const lines = ['ulimit -c 0', `ulimit -f ${Math.ceil(rlimits.maxFileBytes / 1024)}`];
  if (rlimits.maxProcesses !== undefined) lines.push(`ulimit -u ${rlimits.maxProcesses}`);
  if (rlimits.maxDataBytes !== undefined) lines.push(`ulimit -d ${Math.ceil(rlimits.maxDataBytes / 1024)}`);
  return `{ ${lines.join('; ')}; } 2>/dev/null; exec "$@"`;
}
