import { userInfo } from 'node:os';
import { cancelRun, RunEndedError, type SignalOutcome, steerRun } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import { openCliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import type { ProjectFlags } from '../project-flags';
import type { StoreFlags } from '../store-flag';

/** Flags of `bridle steer` and `bridle cancel`. */
export interface SteerFlags extends ProjectFlags, StoreFlags {
  /** A Bridle server to ask instead of the store (`POST /api/runs/:id/input` or `/cancel`). */
  server?: string;
}

/** What to do to the run: add a user message, or cancel it. */
export type SteerWork = { kind: 'input'; content: string } | { kind: 'cancel' };

/** Who acts, as the journal records it: `cli:<user name>`. */
function cliUser(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** Asks a server to steer or cancel the run; a refusal is thrown as its message (a 409 as `RunEndedError`). */
async function throughServer(context: CommandContext, server: string, runId: string, work: SteerWork) {
  let base: URL;
  try {
    base = new URL(server);
  } catch {
    throw new ConfigError(
      `Invalid --server ${JSON.stringify(server)}: give the server's base URL, e.g. http://127.0.0.1:3000.`,
    );
  }
  const url = new URL(
    `api/runs/${encodeURIComponent(runId)}/${work.kind}`,
    base.href.endsWith('/') ? base : `${base.href}/`,
  );
  const token = context.io.env.BRIDLE_API_TOKEN?.trim();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(work.kind === 'input' ? { content: work.content } : {}),
  });
  const body = (await response.json().catch(() => ({}))) as Partial<SignalOutcome> & {
    error?: { code?: string; message?: string };
  };
  if (response.status === 202) return body as SignalOutcome;
  const message = body.error?.message ?? `the server answered ${response.status}`;
  if (body.error?.code === 'run_ended') throw Object.assign(new Error(message), { runEnded: true });
  throw new ConfigError(`${url.origin}: ${message}`);
}

/**
 * `bridle steer <runId> <text>` and `bridle cancel <runId>`: through the configured store (the run's process
 * hears it through the store: SQLite's signals table, Postgres NOTIFY), or through a server (`--server`, with
 * `BRIDLE_API_TOKEN`). Exit 0 once sent (or kept for a paused run), 1 for a run that already ended, 2 for an
 * unknown run or bad flags.
 */
export async function steerAction(
  context: CommandContext,
  runId: string,
  work: SteerWork,
  flags: SteerFlags,
): Promise<number> {
  const { io, outputStyle: style, errorStyle } = context;
  if (work.kind === 'input' && work.content.trim() === '')
    throw new ConfigError('bridle steer needs the message to add: bridle steer <runId> "<text>".');
  let outcome: SignalOutcome;
  try {
    if (flags.server !== undefined) outcome = await throughServer(context, flags.server, runId, work);
    else {
      const project = await loadCliProject(context, flags);
      const stored = await openCliStore(context, flags, project.config, { readOnly: true });
      try {
        const options = { store: stored.store, runId, by: cliUser() };
        outcome =
          work.kind === 'input' ? await steerRun({ ...options, content: work.content }) : await cancelRun(options);
      } finally {
        await stored.close();
      }
    }
  } catch (error) {
    if (RunEndedError.isInstance(error) || (error as { runEnded?: boolean }).runEnded) {
      io.stderr.write(`${errorStyle.red(`bridle: ${(error as Error).message}`)}\n`);
      return ExitCode.failed;
    }
    throw error;
  }
  const what = work.kind === 'input' ? 'Input' : 'Cancel';
  io.stdout.write(
    outcome.delivery === 'signal'
      ? `${what} sent to run ${runId}${work.kind === 'input' ? ': it joins at the next step boundary' : ': it stops and ends aborted'}.\n`
      : work.kind === 'input'
        ? `Run ${runId} is not running anywhere (it waits for approval, or its process died): the input is kept in its journal for its resume (bridle resume ${runId}).\n`
        : `Run ${runId} was not running anywhere (it waited for approval, or its process died): it is now ended (aborted).\n`,
  );
  if (outcome.delivery === 'signal' && work.kind === 'input')
    io.stderr.write(style.dim('Its event stream shows an input event once it is delivered.\n'));
  return ExitCode.completed;
}
