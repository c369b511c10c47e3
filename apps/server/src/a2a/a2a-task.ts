import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { StoredRun, Usage } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { PendingCall } from '../turns/checked-decisions';

/** A run's status as an A2A task state: `awaiting_approval` is `input-required`, `aborted` is `canceled`. */
export function taskState(status: string): TaskState {
  switch (status) {
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'awaiting_approval':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'aborted':
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_FAILED;
  }
}

/** True for a state a task never leaves. */
export function isTerminal(state: TaskState): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A message of the agent in a task. */
export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a task says of its run beyond the protocol: `metadata.bridle`. */
export interface RunFacts {
  runId: string;
  status: string;
  answer?: string | undefined;
  error?: string | undefined;
  usage?: Usage | undefined;
  steps?: number | undefined;
  pendingApprovals?: readonly PendingCall[] | undefined;
}

/**
 * The status message of a run that is not simply completed: the calls a paused run waits on (a text part
 * saying how to answer, and a data part `{ pendingApprovals }`), or why it failed.
 */
function statusMessage(facts: RunFacts, contextId: string): Message | undefined {
  if (facts.status === 'awaiting_approval') {
    const calls = (facts.pendingApprovals ?? []).map(({ callId, name, arguments: args, digest }) => ({
      callId,
      name,
      arguments: args,
      ...(digest === undefined ? {} : { digest }),
    }));
    return agentMessage(facts.runId, contextId, [
      textPart(
        `Waiting for approval of ${calls.map((call) => `${call.name} (call ${call.callId})`).join(', ')}. Answer with a message in this task holding a data part { "approvals": { "<callId>": true | false | { "approved": boolean, "digest": "<digest>" } } }.`,
      ),
      dataPart({ pendingApprovals: calls }),
    ]);
  }
  if (facts.status === 'completed' || facts.status === 'running') return undefined;
  const reason = facts.error === undefined ? '' : `: ${redactCredentials(facts.error)}`;
  return agentMessage(facts.runId, contextId, [textPart(`The run ended ${facts.status}${reason}`)]);
}

/** The task of a run: its id, context (the session), state, answer (artifact `answer`), and `metadata.bridle`. */
export function taskOf(facts: RunFacts, contextId: string): Task {
  const answer = facts.status === 'completed' && facts.answer !== undefined ? facts.answer : undefined;
  return {
    id: facts.runId,
    contextId,
    status: {
      state: taskState(facts.status),
      message: statusMessage(facts, contextId),
      timestamp: new Date().toISOString(),
    },
    artifacts:
      answer === undefined
        ? []
        : [
            {
              artifactId: 'answer',
              name: 'answer',
              description: 'The final answer',
              parts: [textPart(answer)],
              metadata: undefined,
              extensions: [],
            },
          ],
    history: [],
    metadata: {
      bridle: {
        runId: facts.runId,
        status: facts.status,
        ...(facts.usage === undefined ? {} : { usage: facts.usage }),
        ...(facts.steps === undefined ? {} : { steps: facts.steps }),
      },
    },
  };
}

/** The facts of a stored run: its last `run_end` of its own (or `running`). */
export function factsOfRun(run: StoredRun, pending: readonly PendingCall[]): RunFacts {
  let end: Extract<StoredRun['events'][number], { type: 'run_end' }> | undefined;
  for (const event of run.events) {
    if (event.type === 'run_end' && event.runId === run.runId && event.parentRunId === undefined) end = event;
  }
  const status = run.status;
  return {
    runId: run.runId,
    status,
    ...(end?.answer === undefined || status !== 'completed' ? {} : { answer: end.answer }),
    ...(end?.error === undefined ? {} : { error: end.error }),
    ...(end === undefined ? {} : { usage: end.usage, steps: end.steps }),
    pendingApprovals: pending,
  };
}
