import type { AgentFlags } from '../agent-setup';
import type { McpFlags } from '../mcp-tools';

/** Flags `bridle batch` takes in queue mode (besides its own). */
export interface QueueBatchFlags {
  queue?: string;
  queuePrefix?: string;
}

/** Flags of `bridle batch`. */
export interface BatchFlags extends AgentFlags, McpFlags, QueueBatchFlags {
  out: string;
  concurrency: number;
  retries: number;
  retryFailed?: boolean;
}
