import type { Usage } from '@bridle/protocol';
import type { RunEvent } from './types';

/** Per-tool numbers of an {@link EventSummary}. */
export interface ToolSummary {
  /** `tool_start` events for this tool. */
  calls: number;
  /** `tool_end` events with `isError: true`. */
  errors: number;
  /** Sum of `durationMs` over the tool's `tool_end` events. */
  totalDurationMs: number;
  /** `totalDurationMs` divided by the number of `tool_end` events (0 when there is none). */
  meanDurationMs: number;
}

/** What {@link summarizeEvents} returns. */
export interface EventSummary {
  /** The run ids seen, in order of first appearance (one for the events of one run). */
  runIds: string[];
  /** `status` of the last `run_end`, or undefined when no run has ended. */
  status?: string;
  /** `error` of the last `run_end`, when it had one. */
  error?: string;
  /** `model_end` events (model calls that returned a response). */
  steps: number;
  /** `tool_start` events. */
  toolCalls: number;
  /** `model_error` events (including attempts that were retried). */
  modelErrors: number;
  /** `model_error` events with `willRetry: true`. */
  retries: number;
  /** Tokens summed over `model_end` events. */
  usage: Usage;
  /** Sum of `durationMs` of the `run_end` events (0 when none). */
  durationMs: number;
  /** Per tool name. The object has no prototype, so any tool name is a safe key. */
  tools: Record<string, ToolSummary>;
}

/**
 * Summarizes recorded events (of one run, or several: the numbers add up): steps, tokens, status, and
 * per tool the calls, errors and total / mean duration. Linear in the number of events; never throws for
 * well-typed input.
 */
export function summarizeEvents(events: readonly RunEvent[]): EventSummary {
  const summary: EventSummary = {
    runIds: [],
    steps: 0,
    toolCalls: 0,
    modelErrors: 0,
    retries: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
    tools: Object.create(null) as Record<string, ToolSummary>,
  };
  const runIds = new Set<string>();
  const ended = new Map<string, number>();
  for (const event of events) {
    if (!runIds.has(event.runId)) {
      runIds.add(event.runId);
      summary.runIds.push(event.runId);
    }
    switch (event.type) {
      case 'model_end':
        summary.steps++;
        summary.usage.inputTokens += event.usage.inputTokens;
        summary.usage.outputTokens += event.usage.outputTokens;
        break;
      case 'model_error':
        summary.modelErrors++;
        if (event.willRetry) summary.retries++;
        break;
      case 'tool_start':
        summary.toolCalls++;
        toolOf(summary, event.name).calls++;
        break;
      case 'tool_end': {
        const tool = toolOf(summary, event.name);
        if (event.isError) tool.errors++;
        tool.totalDurationMs += event.durationMs;
        ended.set(event.name, (ended.get(event.name) ?? 0) + 1);
        break;
      }
      case 'run_end':
        summary.status = event.status;
        if (event.error === undefined) delete summary.error;
        else summary.error = event.error;
        summary.durationMs += event.durationMs;
        break;
    }
  }
  for (const [name, count] of ended) {
    const tool = summary.tools[name] as ToolSummary;
    tool.meanDurationMs = tool.totalDurationMs / count;
  }
  return summary;
}

function toolOf(summary: EventSummary, name: string): ToolSummary {
  let tool = summary.tools[name];
  if (tool === undefined) {
    tool = { calls: 0, errors: 0, totalDurationMs: 0, meanDurationMs: 0 };
    summary.tools[name] = tool;
  }
  return tool;
}
