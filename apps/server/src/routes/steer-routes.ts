import { cancelRun, type SignalOutcome, steerRun } from '@bridle/core';
import type { RunSignalChannel } from '@bridle/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { readOwnRun } from '../tenant-access';
import { callerOf } from '../tenant-auth';

/** The body of `POST /api/runs/:id/input`. */
export interface InputBody {
  content: string;
}

/** Longest steering message, in characters. */
export const MAX_INPUT_CHARS = 100_000;

const INPUT_BODY = {
  type: 'object',
  required: ['content'],
  additionalProperties: false,
  properties: {
    content: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_INPUT_CHARS,
      description: 'the user message to add at the next step boundary',
    },
  },
} as const;

/** Who steers or cancels, as the journal records it: the API key's name, else `api`. */
function byOf(request: FastifyRequest): string {
  return callerOf(request).keyName ?? 'api';
}

/** Every way to reach a run that runs elsewhere: the store's own signals, and the queue's Redis channel. */
function channels(context: ServerContext): RunSignalChannel[] {
  return context.queue ? [context.queue.queue] : [];
}

/**
 * Throws 404 unless the run is in the store and belongs to the caller's tenant (another tenant's run reads as
 * unknown; a run whose journal names no tenant, as the CLI writes them, is tenant `default`'s, as on every route).
 */
async function knownRun(context: ServerContext, request: FastifyRequest, id: string): Promise<void> {
  if (!(await readOwnRun(context, callerOf(request), id)))
    throw new ServerError('not_found', `Run ${id} does not exist in this server's store (BRIDLE_STORE).`);
}

/**
 * `POST /api/runs/:id/input` `{ content }` and `POST /api/runs/:id/cancel`: steer or cancel a run wherever it
 * runs (this process, another server on the same store, a queue worker), both 202 `{ runId, delivery }`. A
 * running run gets the signal (`delivery: 'signal'`): input joins it at its next step boundary, acknowledged by
 * an `input` event on `GET /api/runs/:id/events`; a cancel ends it `aborted` with `cancelledBy: 'api'`. A paused
 * run keeps input in its journal for its resume, and a cancel ends it at once (`delivery: 'journal'`). An ended
 * run is 409 `run_ended`; an unknown one 404.
 */
export function registerSteerRoutes(app: FastifyInstance, context: ServerContext, paramsSchema: object): void {
  app.post<{ Params: { id: string }; Body: InputBody }>(
    '/runs/:id/input',
    {
      schema: {
        params: paramsSchema,
        body: INPUT_BODY,
        summary: 'Steer a run: add a user message at its next step boundary (202)',
        tags: ['api'],
      },
    },
    async (request, reply): Promise<SignalOutcome> => {
      const { id } = request.params;
      await knownRun(context, request, id);
      const outcome = await steerRun({
        store: context.store,
        runId: id,
        content: request.body.content,
        by: byOf(request),
        channels: channels(context),
      });
      request.log.info({ runId: id, delivery: outcome.delivery }, 'run steered');
      reply.code(202);
      return outcome;
    },
  );

  app.post<{ Params: { id: string } }>(
    '/runs/:id/cancel',
    {
      schema: { params: paramsSchema, summary: 'Cancel a run wherever it runs (202)', tags: ['api'] },
    },
    async (request, reply): Promise<SignalOutcome> => {
      const { id } = request.params;
      await knownRun(context, request, id);
      const outcome = await cancelRun({
        store: context.store,
        runId: id,
        by: byOf(request),
        channels: channels(context),
      });
      request.log.info({ runId: id, delivery: outcome.delivery }, 'run cancelled');
      reply.code(202);
      return outcome;
    },
  );
}
