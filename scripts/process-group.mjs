// Child processes for the CI scripts (release-rehearsal.mjs, node-matrix.mjs): each runs without a shell in
// its own process group, so a timeout or an interrupt ends it with everything it started; `script()` runs a
// script body and its cleanups on every exit path (success, failure, Ctrl-C, SIGTERM, SIGHUP).
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const live = new Set();
// Set once `script()` starts to clean up: from then on no new child may start (the body may still be running).
let stopping = false;

/**
 * `process.env` without the npm and pnpm settings a `pnpm run` parent passes down (so a child's npm, pnpm
 * or npx reads only its own config), with colours and telemetry off, plus `extra`.
 */
export function childEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_/i.test(key)) env[key] = value;
  }
  return { ...env, NO_COLOR: '1', TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', ...extra };
}

/** Ends a child's whole process group: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
export function stopGroup(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('close', resolve));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // the group is gone already
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  return exited.finally(() => clearTimeout(timer));
}

/**
 * Starts a long-running command (a server) in its own process group; stdout and stderr go to `logFile`.
 * Stop it with {@link stopGroup}; `script()` stops it on exit if it is still running.
 */
export function start(command, args, { cwd, env, logFile }) {
  if (stopping) throw new Error(`not starting ${command}: the script is stopping`);
  const log = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  live.add(child);
  child.once('close', () => live.delete(child));
  return child;
}

/**
 * Runs a command to its end, stdin from /dev/null, output collected (and echoed with `echo`).
 * Rejects with the command, its exit and the tail of its output when it fails or outlives `timeoutMs`,
 * unless `check` is false. Resolves with `{ code, signal, stdout, stderr }`.
 */
export function run(command, args, { cwd, env, timeoutMs = 10 * 60_000, check = true, echo = false } = {}) {
  return new Promise((resolve, reject) => {
    if (stopping) return reject(new Error(`not running ${command}: the script is stopping`));
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      if (echo) process.stdout.write(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      if (echo) process.stderr.write(chunk);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child);
    }, timeoutMs);
    const what = `${command} ${args.join(' ')}${cwd ? ` (in ${cwd})` : ''}`;
    child.once('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(new Error(`could not start ${what}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (!check || (code === 0 && !timedOut)) return resolve({ code, signal, stdout, stderr });
      const how = timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${code ?? signal}`;
      const tail = `${stdout}${stderr}`.trimEnd().split('\n').slice(-40).join('\n');
      reject(new Error(`${what} failed (${how}):\n${tail}`));
    });
  });
}

/**
 * Runs `body(defer)` and then every deferred cleanup (last registered first), on success, on failure and on
 * SIGINT / SIGTERM / SIGHUP; stops the children still running first. Sets the exit code: 0, 1 on failure,
 * 128 + signal number on a signal.
 */
export async function script(body) {
  const cleanups = [];
  const defer = (cleanup) => cleanups.push(cleanup);
  let finishing;
  let interrupted = false;
  const finish = () => {
    stopping = true;
    finishing ??= (async () => {
      await Promise.all([...live].map((child) => stopGroup(child)));
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error(`cleanup failed: ${error.message}`);
        }
      }
    })();
    return finishing;
  };
  const signals = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  for (const [name, number] of Object.entries(signals)) {
    process.once(name, () => {
      interrupted = true;
      console.error(`\n${name}: stopping and cleaning up`);
      finish().finally(() => process.exit(128 + number));
    });
  }
  // Last resort if something calls process.exit(): no child may outlive the script.
  process.once('exit', () => {
    for (const child of live) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  });
  try {
    await body(defer);
    await finish();
  } catch (error) {
    // After a signal the body fails because its children were stopped: that is not news.
    if (!interrupted) console.error(`\nFAILED: ${error.message}`);
    await finish();
    process.exitCode = 1;
  }
}
