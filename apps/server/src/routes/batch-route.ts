import { type BatchRunContext, type BatchRunOutcome, runBatch } from '@bridle/batch';
import { runAgent } from '@bridle/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BatchJob, viewJob } from '../batch-jobs';
import { checkPromptLength } from '../input-bounds';
import { skillManifest } from '../journaled-profile';
import { runQueuedBatch } from '../queued-batch';
import { queuedModelId } from '../queued-runs';
import { runJournal } from '../run-journal';
import { serverRunOptions } from '../run-options';
import type { BatchBody, BatchItemBody } from '../schemas';
import { requireModel, type ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { callerOf } from '../tenant-auth';
import { jobQuotas } from '../tenant-quotas';

function jobNotFound(id: string): ServerError {
  return new ServerError(
    'not_found',
    `Batch job ${id} does not exist: it was never created here or expired after finishing.`,
  );
}

/** Marks a job finished and logs how it ended. */
function finished(job: BatchJob, request: FastifyRequest, error: unknown): void {
  job.finishedAt = Date.now();
  if (error === undefined) request.log.info({ jobId: job.id, progress: job.progress }, 'batch job finished');
  else request.log.error({ err: error, jobId: job.id }, 'batch job failed');
}

/**
 * `POST /api/batch` starts a job (202 with its id), `GET /api/batch/:id` shows progress and the finished
 * results, `DELETE /api/batch/:id` cancels what has not finished. Items run through `runBatch`; each
 * one also takes a run slot, so batch work and chat share `maxConcurrentRuns` (items wait for a slot).
 * With `BRIDLE_REDIS_URL` the items are enqueued instead, all at once, for the workers.
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
      if (context.queue) {
        // Workers run the items: they hold the model, the skills and the keys.
        const queued = context.queue;
        queuedModelId(queued);
        const job = context.jobs.create(body.items.length, callerOf(request).tenant);
        job.done = runQueuedBatch(
          queued,
          context.config,
          job,
          body,
          callerOf(request).keyName,
          jobQuotas(context, job.tenant),
        ).then(
          () => finished(job, request, undefined),
          (error: unknown) => finished(job, request, error),
        );
        return reply.code(202).header('location', `/api/batch/${job.id}`).send(viewJob(job));
      }
      const model = requireModel(context);
      const profile = context.profiles.get(body.skill);
      const job = context.jobs.create(body.items.length, callerOf(request).tenant);
      const run = async (item: BatchItemBody, { signal, onEvent }: BatchRunContext): Promise<BatchRunOutcome> => {
        const slot = await context.limiter.acquire(signal);
        if (!slot) return { status: 'aborted', error: 'the batch job was cancelled before this item started' };
        const journal = runJournal(context, callerOf(request));
        try {
          return await runAgent(
            serverRunOptions(context.agent, {
              approve: context.agent.approve,
              model,
              tools: profile.tools,
              system: profile.system,
              prompt: item.prompt,
              manifest: skillManifest(body.skill ?? context.profiles.defaultSkill),
              maxSteps: item.maxSteps ?? body.maxSteps,
              timeoutMs: context.config.runTimeoutMs,
              signal: AbortSignal.any([signal, slot.signal]),
              stream: false,
              store: journal.store,
              runId: journal.runId,
              onEvent: journal.observers(onEvent),
              budget: journal.budget(context.agent.budget),
            }),
          );
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
        () => finished(job, request, undefined),
        (error: unknown) => finished(job, request, error),
      );
      return reply.code(202).header('location', `/api/batch/${job.id}`).send(viewJob(job));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/batch/:id',
    { schema: { params: schemas.params, summary: 'A batch job: progress and finished results', tags: ['api'] } },
    async (request) => {
      const job = context.jobs.get(request.params.id);
      // Another tenant's job reads as unknown.
      if (!job || job.tenant !== callerOf(request).tenant) throw jobNotFound(request.params.id);
      return viewJob(job);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/batch/:id',
    { schema: { params: schemas.params, summary: 'Cancel a batch job', tags: ['api'] } },
    async (request) => {
      const job = context.jobs.get(request.params.id);
      // Another tenant's job reads as unknown.
      if (!job || job.tenant !== callerOf(request).tenant) throw jobNotFound(request.params.id);
      context.jobs.cancel(job.id);
      await job.done;
      return viewJob(job);
    },
  );
}
