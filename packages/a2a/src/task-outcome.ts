import { type Message, type Part, type Task, TaskState } from '@a2a-js/sdk';
import type { Usage } from '@bridle/protocol';
import { A2AAgentError } from './a2a-agent-error';

/** The text parts of `parts`, joined by blank lines (data parts as JSON; files by their name and type). */
export function partsText(parts: readonly Part[] | undefined): string {
  const texts: string[] = [];
  for (const part of parts ?? []) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') texts.push(JSON.stringify(content.value));
    else if (content) texts.push(`[file ${part.filename || '(unnamed)'} ${part.mediaType || ''}]`.trim());
  }
  return texts.join('\n\n');
}

const STATE_NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
};

/** A count a peer reports: a finite, non-negative integer, else undefined. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The usage a peer reports in `metadata.bridle.usage` (Bridle servers do), when it is well formed; the A2A
 * protocol itself carries none, so other peers' costs stay unknown.
 */
export function reportedUsage(metadata: Record<string, unknown> | undefined): Usage | undefined {
  const usage = (metadata?.bridle as { usage?: Record<string, unknown> } | undefined)?.usage;
  const inputTokens = count(usage?.inputTokens);
  const outputTokens = count(usage?.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return { inputTokens, outputTokens };
}

/** What the tool returns of a finished exchange. */
export interface Outcome {
  text: string;
  usage?: Usage;
  contextId?: string;
}

/**
 * The outcome of a peer's answer: a message's text, or a completed task's artifacts (else its status message).
 * A task in any other final state, or waiting for input or auth, is an `A2AAgentError` that says so with the
 * peer's own words (input-required: its approvals are not forwarded to this run).
 */
export function outcomeOf(answer: Message | Task, url: string): Outcome {
  if (!('status' in answer)) {
    return { text: partsText(answer.parts), ...(answer.contextId ? { contextId: answer.contextId } : {}) };
  }
  const state = answer.status?.state;
  const said = partsText(answer.status?.message?.parts);
  const usage = reportedUsage(answer.metadata);
  if (state === TaskState.TASK_STATE_COMPLETED) {
    const artifacts = answer.artifacts.map((artifact) => partsText(artifact.parts)).filter((text) => text !== '');
    return {
      text: artifacts.length > 0 ? artifacts.join('\n\n') : said,
      ...(usage ? { usage } : {}),
      ...(answer.contextId ? { contextId: answer.contextId } : {}),
    };
  }
  const name = (state !== undefined && STATE_NAMES[state]) || `in state ${state ?? 'unknown'}`;
  const hint =
    state === TaskState.TASK_STATE_INPUT_REQUIRED
      ? ' It waits for input (an approval, say), which this tool does not forward: ask its operator, or give it tools that need none.'
      : '';
  throw Object.assign(
    new A2AAgentError(`The A2A agent at ${url} ended task ${answer.id} ${name}${said ? `: ${said}` : '.'}${hint}`),
    { usage },
  );
}
