import type { Store } from '@bridle/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acquireRunSlot, type ExecuteRun, saveRunSession } from './answer-run';
import { runJournal } from './run-journal';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Session } from './session-store';
import { callerOf } from './tenant-auth';

/** The answer to a request whose run goes on without it (`Prefer: respond-async`): 202 with this body. */
export interface DetachedRunResponse {
  runId: string;
  sessionId: string;
  status: 'running';
}

/** True when the request's `Prefer` header asks for `respond-async` (RFC 7240). */
export function prefersAsync(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  const values = Array.isArray(prefer) ? prefer : prefer === undefined ? [] : [prefer];
  return values.some((value) =>
    value.split(',').some((preference) => preference.split(';')[0]?.trim().toLowerCase() === 'respond-async'),
  );
}

/** `store` whose `appendEvents` also calls `appended` after each append the store took. */
function noticingAppends(store: Store, appended: () => void): Store {
  const appendEvents: Store['appendEvents'] = async (...args) => {
    await store.appendEvents(...args);
    appended();
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendEvents') return appendEvents;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Runs a segment of run `runId` for the server rather than for the request (`Prefer: respond-async`): answers 202
 * `{ runId, sessionId, status: "running" }` with `Preference-Applied: respond-async` once the segment's first
 * events are journaled (so a read of the run says `running`), and the client's going away does not stop it. It
 * holds a run slot and the session until it ends, then saves the session as a waited-for segment would; a
 * failure after the 202 is logged and its run's journal says how it ended. A refusal before anything was
 * journaled (decided elsewhere, say) is thrown, and the route answers it as usual.
 */
export async function answerDetachedRun(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { session: Session; skill?: string; runId: string; execute: ExecuteRun; saveSession?: boolean },
  onSettled: () => void,
): Promise<DetachedRunResponse> {
  let handedOff = false;
  try {
    const segment = startSegment(context, request, options, onSettled);
    handedOff = true;
    const first = await Promise.race([segment.journaled, segment.settled]);
    if (typeof first === 'object') throw first.error;
  } finally {
    if (!handedOff) onSettled();
  }
  reply.code(202).header('preference-applied', 'respond-async');
  return { runId: options.runId, sessionId: options.session.id, status: 'running' };
}

/**
 * Starts the segment (throws the 409 of a busy session, the 503 of a full server): `journaled` resolves once its
 * first events are in the store, `settled` once it ended (`{ error }` if it failed), after `onSettled` was called.
 */
function startSegment(
  context: ServerContext,
  request: FastifyRequest,
  options: { session: Session; skill?: string; runId: string; execute: ExecuteRun; saveSession?: boolean },
  onSettled: () => void,
): { journaled: Promise<'started'>; settled: Promise<{ error: unknown } | 'ended'> } {
  const { session, runId } = options;
  if (context.busySessions.has(session.id)) {
    throw new ServerError('session_busy', `Session ${session.id} is already running a prompt: wait for its answer.`);
  }
  const caller = callerOf(request);
  // Not tied to the request's connection: the slot's signal aborts it only at the end of a shutdown.
  const slot = acquireRunSlot(context, caller);
  context.busySessions.add(session.id);
  const journal = runJournal(context, caller, runId);
  let begun = false;
  let started!: () => void;
  const journaled = new Promise<'started'>((resolve) => {
    started = () => {
      begun = true;
      resolve('started');
    };
  });
  const settled = (async (): Promise<{ error: unknown } | 'ended'> => {
    try {
      const result = await options.execute({
        runId,
        store: noticingAppends(journal.store, started),
        signal: slot.signal,
        stream: false,
        onEvent: journal.observers(),
        budget: journal.budget(context.agent.budget),
      });
      await saveRunSession(context, options, result);
      request.log.info({ runId, status: result.status, steps: result.steps }, 'run ended (detached from its request)');
      return 'ended';
    } catch (error) {
      // Before its first events, the route answers the refusal; after, only the log and the journal can tell.
      if (begun) request.log.error({ err: error, runId }, 'the run detached from its request failed');
      return { error };
    } finally {
      journal.close();
      context.busySessions.delete(session.id);
      slot.release();
      onSettled();
    }
  })();
  return { journaled, settled };
}
