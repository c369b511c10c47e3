import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { displayText } from '@bridle/models';
import { ConfigError, type RunEvent, type Tool } from '@bridle/protocol';
import { createApprover } from '../approval-prompt';
import { argumentsPreview } from '../arguments-preview';
import type { CommandContext } from '../command-context';
import { editPreview } from '../edit-preview';
import { ExitCode, exitCodeForStatus } from '../exit-code';
import { liveRegionFor } from '../live-region-for';
import { markdownFor } from '../markdown-for';
import { createRunRenderer } from '../render-run';
import { followRunEvents } from '../run-event-source';
import { serverApi } from '../server-api';
import { type PendingCall, postDecisions, postInput, readServerRun, ServerRefusal } from '../server-run-calls';
import { terminalQuestions } from '../terminal-questions';
import { typedInput } from '../typed-input';

/** Flags of `bridle attach`. */
export interface AttachFlags {
  /** The server's base URL; default `$BRIDLE_SERVER_URL`, else `http://127.0.0.1:3000` (`bridle serve`'s). */
  server?: string;
  /** The server's workspace folder, when this machine can read it: approval questions diff against its files. */
  workspace?: string;
}

/** Where `bridle serve` listens by default. */
const DEFAULT_SERVER = 'http://127.0.0.1:3000';
/** How long to wait before following again a run that is running but whose stream ended (a new segment starting). */
const RECONNECT_MS = 250;
/** How often a paused run that nobody here can decide is read again (someone may decide it elsewhere). */
const PAUSED_POLL_MS = 1000;

type RunEnd = Extract<RunEvent, { type: 'run_end' }>;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * `bridle attach <runId>`: follows a run that executes in a server (or a worker behind it) from its journal on,
 * drawn by the same renderer as `bridle run`; answers its approvals on a terminal with the same question and diff
 * (`POST /api/runs/:id/approvals`, each decision bound to its pause); sends each line typed to it
 * (`POST /api/runs/:id/input`). Resolves with the run's exit code once it ends, or 130 when Ctrl-C detached (the run
 * goes on). A run the server does not know, or a refused token, is a `ConfigError` (exit 2).
 */
export async function attachAction(context: CommandContext, runId: string, flags: AttachFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  const api = serverApi(flags.server ?? io.env.BRIDLE_SERVER_URL?.trim() ?? DEFAULT_SERVER, io.env.BRIDLE_API_TOKEN);
  const workspaceRoot = flags.workspace === undefined ? undefined : workspaceFolder(io.cwd, flags.workspace);
  const markdown = await markdownFor(io.stdout, context.outputStyle);
  const live = await liveRegionFor(io, style, markdown !== undefined);
  const renderer = createRunRenderer({
    stdout: io.stdout,
    stderr: io.stderr,
    style,
    markdown,
    live,
    workspaceRoot: io.stderr.isTTY === true ? workspaceRoot : undefined,
  });
  const note = (line: string) => {
    if (live) live.print(() => io.stderr.write(`${line}\n`));
    else io.stderr.write(`${line}\n`);
  };

  const controller = new AbortController();
  let detached = false;
  // A decision this process sent and the server has not answered yet. A server from before `Prefer: respond-async`
  // (it answers once the resumed segment ends) runs that segment for the request, so closing it (detaching) would
  // stop the run: the first Ctrl-C then only says so, a second one detaches anyway. A current server answers 202 as
  // soon as the segment is under way.
  let decisionOpen = false;
  // The calls decided from here (by digest, else id): while the run still shows them pending (a queued decision
  // waiting for a worker), they are not asked again.
  const decided = new Set<string>();
  const decidedKey = (call: PendingCall) => call.digest ?? call.callId;
  let warned = false;
  const detach = () => {
    if (decisionOpen && !warned) {
      warned = true;
      note(
        style.yellow(
          'bridle: the server runs this part of the run for the approval sent from here: detaching now stops it. Ctrl-C again to detach anyway.',
        ),
      );
      return;
    }
    detached = true;
    controller.abort(new Error('detached'));
  };
  const stopInterrupt = io.onInterrupt(detach);
  const stopTerminate = io.onTerminate?.(detach) ?? (() => {});
  const questions = terminalQuestions(io, detach);
  const typed = questions
    ? typedInput(io, (line) => {
        postInput(api, runId, line).then(
          () => note(style.dim('Sent to the run: it joins at its next step boundary.')),
          (error: unknown) =>
            note(style.red(`bridle: the input was not sent: ${displayText((error as Error).message)}`)),
        );
      })
    : undefined;
  const approve = createApprover({
    policy: 'ask',
    ...(questions
      ? {
          ask: async (question: string, keys: readonly string[]) => {
            live?.pause();
            typed?.pause();
            try {
              return await questions.ask(question, keys);
            } finally {
              typed?.resume();
              live?.resume();
            }
          },
        }
      : {}),
    preview: editPreview(workspaceRoot, style) ?? argumentsPreview(style),
    stderr: io.stderr,
    style,
    signal: controller.signal,
  });

  let after: number | undefined;
  let lastEnd: RunEnd | undefined;
  let toldPaused = false;
  try {
    if (questions)
      io.stderr.write(
        `${style.dim(`Following run ${runId} on ${api.origin}: type a line to send it to the run, Ctrl-C to detach.`)}\n`,
      );
    while (!detached) {
      const end = await followRunEvents(api, runId, {
        after,
        signal: controller.signal,
        onEvent: (event) => {
          after = event.sequence;
          if (event.type === 'run_end') lastEnd = event;
          renderer.onEvent(event);
        },
      });
      if (detached) break;
      if (end.kind === 'failed') throw refused(api.origin, runId, end.status, end.message);
      // The stream ends with a segment: the run ended, paused, or (a dead or restarting process) stopped saying.
      const status = lastEnd !== undefined && lastEnd.sequence === after ? lastEnd.status : await statusOf();
      if (status === 'running' || decisionOpen) {
        await sleep(RECONNECT_MS);
        continue;
      }
      if (status !== 'awaiting_approval') {
        renderer.finish(lastEnd ?? { status, steps: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 } });
        return exitCodeForStatus(status);
      }
      const run = await readServerRun(api, runId, controller.signal).catch(() => undefined);
      const pending = run?.status === 'awaiting_approval' ? (run.pendingApprovals ?? []) : [];
      if (pending.length > 0 && pending.every((call) => decided.has(decidedKey(call)))) {
        await sleep(RECONNECT_MS);
        continue;
      }
      if (!questions || pending.length === 0) {
        if (!toldPaused && pending.length > 0)
          note(
            style.yellow(
              `bridle: run ${runId} waits for approval of ${pending.map((call) => displayText(call.name)).join(', ')}; nobody can answer here (no terminal): decide it in the console, or attach from a terminal. Waiting.`,
            ),
          );
        toldPaused = true;
        await sleep(PAUSED_POLL_MS);
        continue;
      }
      const decisions: { call: PendingCall; approved: boolean }[] = [];
      for (const call of pending) {
        const answer = await approve({ id: call.callId, name: call.name, arguments: call.arguments }, {
          name: call.name,
        } as Tool);
        if (detached) break;
        decisions.push({ call, approved: answer === true || (typeof answer === 'object' && answer.approved) });
      }
      if (detached) break;
      decisionOpen = true;
      warned = false;
      const keys = decisions.map(({ call }) => decidedKey(call));
      for (const key of keys) decided.add(key);
      postDecisions(api, runId, decisions)
        .catch((error: unknown) => {
          // Not taken here: if the calls are still pending, they are asked again.
          for (const key of keys) decided.delete(key);
          // Decided elsewhere first (409): the run goes on with that decision, and this command follows it.
          if (error instanceof ServerRefusal && error.status === 409)
            note(style.yellow(`bridle: ${displayText(error.message)}`));
          else note(style.red(`bridle: the decision was not taken: ${displayText((error as Error).message)}`));
        })
        .finally(() => {
          decisionOpen = false;
        });
      // Follow the resumed segment as it runs.
      await sleep(RECONNECT_MS);
    }
    live?.stop();
    io.stderr.write(
      `${style.dim(`Detached from run ${runId}: it goes on. bridle attach ${runId} follows it again.`)}\n`,
    );
    return ExitCode.interrupted;
  } finally {
    live?.stop();
    typed?.close();
    questions?.close();
    stopInterrupt();
    stopTerminate();
  }

  async function statusOf(): Promise<string> {
    try {
      return (await readServerRun(api, runId, controller.signal)).status;
    } catch (error) {
      if (detached) return 'running';
      if (error instanceof ServerRefusal) throw refused(api.origin, runId, error.status, error.message);
      throw error;
    }
  }
}

/** The error for a server's refusal to show the run: unknown run, bad token, or another failure. */
function refused(origin: string, runId: string, status: number | undefined, message: string): Error {
  if (status === 404)
    return new ConfigError(
      `Run ${runId} is not on ${origin}: ${message} Check the run id (GET /api/runs, or the console) and --server.`,
    );
  if (status === 401 || status === 403)
    return new ConfigError(`${origin} refused the token: ${message} Set BRIDLE_API_TOKEN to a key of that server.`);
  return new Error(`${origin}: ${message}`);
}

/** The real path of the `-w` folder; a `ConfigError` naming it when it is not a folder. */
function workspaceFolder(cwd: string, folder: string): string {
  const path = resolve(cwd, folder);
  try {
    if (statSync(path).isDirectory()) return realpathSync(path);
  } catch {
    // Named below.
  }
  throw new ConfigError(
    `-w ${JSON.stringify(folder)}: ${path} is not a folder. Give the server's workspace folder, or leave -w out.`,
  );
}
