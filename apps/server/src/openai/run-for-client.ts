import { runAgent } from '@bridle/core';
import type { Message } from '@bridle/protocol';
import type { FastifyReply } from 'fastify';
import { acquireRunSlot } from '../answer-run';
import { checkPromptLength } from '../input-bounds';
import { skillManifest } from '../journaled-profile';
import { runJournal } from '../run-journal';
import { serverRunOptions } from '../run-options';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { transcriptChars } from '../session-store';
import { callerOf } from '../tenant-auth';
import { watchRevokedKey } from '../watch-revoked-key';
import type { ClientRunResult, RunForClientOptions } from './client-run';
import { systemWithInstructions } from './openai-input';
import { runQueuedForClient } from './run-queued-for-client';

export type { ClientRunResult, RunForClientOptions } from './client-run';

/**
 * Checks the input against the server's bounds (the prompt: `BRIDLE_MAX_PROMPT_CHARS`; the whole
 * conversation: `BRIDLE_MAX_SESSION_CHARS`; both 413), takes a run slot (503 when full) and runs the
 * agent. The client's connection closing aborts the run. Tools that require approval are denied: nobody
 * can approve on `/v1` (the server's `approve` hook is not used here).
 */
export async function runForClient(
  context: ServerContext,
  reply: FastifyReply,
  options: RunForClientOptions,
): Promise<ClientRunResult> {
  const messages: Message[] = options.input.messages;
  checkPromptLength(context.config, (messages.at(-1) as Message).content);
  const chars = transcriptChars(messages);
  if (chars > context.config.maxSessionChars) {
    throw new ServerError(
      'payload_too_large',
      `The conversation has ${chars} characters (as JSON), more than BRIDLE_MAX_SESSION_CHARS=${context.config.maxSessionChars}: send fewer earlier messages.`,
    );
  }
  // With BRIDLE_REDIS_URL the workers run it: they hold the model, the skills and the keys.
  if (context.queue) return runQueuedForClient(context, context.queue, reply, messages, options);
  const model = requireModel(context);
  const slot = acquireRunSlot(context, callerOf(reply.request), reply.raw.socket ?? undefined);
  const onClose = () => {
    if (!reply.raw.writableFinished) slot.abort(new Error('the client disconnected'));
  };
  reply.raw.once('close', onClose);
  const journal = runJournal(context, callerOf(reply.request));
  // A key revoked while its stream is open: the stream is cut, and the run goes on for its tenant.
  const stopWatching = options.stream
    ? watchRevokedKey(context, callerOf(reply.request), () => {
        reply.raw.off('close', onClose);
        reply.raw.destroy();
      })
    : undefined;
  try {
    return await runAgent(
      serverRunOptions(context.agent, {
        approve: undefined,
        model,
        tools: options.agent.profile.tools,
        system: systemWithInstructions(options.agent.profile.system, options.input.instructions),
        messages,
        manifest: skillManifest(options.agent.skill),
        timeoutMs: context.config.runTimeoutMs,
        signal: slot.signal,
        stream: options.stream,
        store: journal.store,
        runId: journal.runId,
        budget: journal.budget(context.agent.budget),
        // The server's own observers (from `agent.onEvent`, the live feed of /api/runs) hear the run too.
        onEvent: journal.observers(options.onEvent),
      }),
    );
  } finally {
    stopWatching?.();
    journal.close();
    reply.raw.off('close', onClose);
    slot.release();
  }
}
