import { ConfigError } from '@bridle/protocol';
import type { Queue } from 'bullmq';
import { jobIdOf, type RunJobData, type RunJobSpec, toSizedJobData } from './job-spec';

/** Most jobs sent to Redis in one round trip by `enqueueMany`. */
export const BULK_JOBS = 1000;
/** Most bytes of job data sent in one round trip by `enqueueMany` (a chunk closes at whichever comes first). */
export const BULK_BYTES = 8 * 1024 * 1024;

/**
 * Validates every spec first (nothing is enqueued when one is refused: a `ConfigError` naming its index), then
 * adds the jobs with BullMQ's `addBulk`, one round trip per chunk of {@link BULK_JOBS} jobs or
 * {@link BULK_BYTES} bytes. Job ids are run ids, so jobs the queue already knows are left as they are.
 */
export async function bulkEnqueue(
  queue: Queue,
  specs: readonly RunJobSpec[],
  maxPayloadBytes: number,
): Promise<{ jobId: string; runId: string }[]> {
  const chunks: RunJobData[][] = [];
  let chunk: RunJobData[] = [];
  let chunkBytes = 0;
  for (const [index, spec] of specs.entries()) {
    let sized: { data: RunJobData; bytes: number };
    try {
      sized = toSizedJobData(spec, maxPayloadBytes);
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      throw new ConfigError(`Run job ${index} of ${specs.length}: ${error.message} Nothing was enqueued.`, {
        cause: error,
      });
    }
    if (chunk.length > 0 && (chunk.length >= BULK_JOBS || chunkBytes + sized.bytes > BULK_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      chunkBytes = 0;
    }
    chunk.push(sized.data);
    chunkBytes += sized.bytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  const ids: { jobId: string; runId: string }[] = [];
  for (const datas of chunks) {
    const jobs = datas.map((data) => ({ name: 'run', data, opts: { jobId: jobIdOf(data) } }));
    await queue.addBulk(jobs);
    for (const job of jobs) ids.push({ jobId: job.opts.jobId, runId: job.data.runId });
  }
  return ids;
}
