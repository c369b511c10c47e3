import { type BatchRunContext, type BatchRunOutcome, runBatch } from '@bridle/batch';
import { runAgent } from '@bridle/core';
import type { FastifyInstance } from 'fastify';
import { viewJob } from '../batch-jobs';
import { checkPromptLength } from '../input-bounds';
import { runJournal } from '../run-journal';
import type { BatchBody, BatchItemBody } from '../schemas';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';

function jobNotFound(id: string): ServerError {
  return new ServerError(
    'not_found',
    `Batch job ${id} does not exist: it was never created here or expired after finishing.`,
  );
}

/**
 * `POST /api/batch` starts a job (202 with its id), `GET /api/batch/:id` shows progress and the finished
 * results, `DELETE /api/batch/:id` cancels what has not finished. Items run through `runBatch`; each
 * one also takes a run slot, so batch work and chat share `maxConcurrentRuns` (items wait for a slot).
 */
export function registerBatchRoutes(
  app: FastifyInstance,
  context: ServerContext,
  schemas: { body: object; params: object },
): void {
  app.post<{ Body: BatchBody }>(
    '/batch',
    { schema: { body: schemas.body, summary: 'Start a batch job', tags: ['api'] } },
    async (request, reply) => {
      const body = request.body;
      for (const [index, item] of body.items.entries()) {
        checkPromptLength(context.config, item.prompt, `items[${index}].prompt`);
      }
      const model = requireModel(context);
      const profile = context.profiles.get(body.skill);
      const job = context.jobs.create(body.items.length);
      const run = async (item: BatchItemBody, { signal, onEvent }: BatchRunContext): Promise<BatchRunOutcome> => {
        const slot = await context.limiter.acquire(signal);
        if (!slot) return { status: 'aborted', error: 'the batch job was cancelled before this item started' };
        const journal = runJournal(context);
        try {
          const maxSteps = item.maxSteps ?? body.maxSteps;
          return await runAgent({
            ...context.agent,
            model,
            tools: profile.tools,
            ...(profile.system === undefined ? {} : { system: profile.system }),
            prompt: item.prompt,
            ...(maxSteps === undefined ? {} : { maxSteps }),
            timeoutMs: context.config.runTimeoutMs,
            signal: AbortSignal.any([signal, slot.signal]),
            store: journal.store,
            runId: journal.runId,
            onEvent: journal.observers(onEvent),
          });
        } finally {
          journal.close();
          slot.release();
        }
      };
      job.done = runBatch(body.items, {
        run,
        concurrency: context.config.batchConcurrency,
        readOnlyTools: profile.readOnlyTools,
        signal: job.controller.signal,
        onResult: (result) => {
          job.results[result.index] = result;
        },
        onProgress: (progress) => {
          job.progress = progress;
        },
      }).then(
        () => {
          job.finishedAt = Date.now();
          request.log.info({ jobId: job.id, progress: job.progress }, 'batch job finished');
        },
        (error: unknown) => {
          job.finishedAt = Date.now();
          request.log.error({ err: error, jobId: job.id }, 'batch job failed');
        },
      );
      return reply.code(202).header('location', `/api/batch/${job.id}`).send(viewJob(job));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/batch/:id',
    { schema: { params: schemas.params, summary: 'A batch job: progress and finished results', tags: ['api'] } },
    async (request) => {
      const job = context.jobs.get(request.params.id);
      if (!job) throw jobNotFound(request.params.id);
      return viewJob(job);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/batch/:id',
    { schema: { params: schemas.params, summary: 'Cancel a batch job', tags: ['api'] } },
    async (request) => {
      const job = context.jobs.get(request.params.id);
      if (!job) throw jobNotFound(request.params.id);
      context.jobs.cancel(job.id);
      await job.done;
      return viewJob(job);
    },
  );
}
