import { type Part, type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { RunEvent } from '@bridle/protocol';
import { agentMessage, dataPart, type RunFacts, taskOf, textPart } from './a2a-task';
import { EventChannel } from './event-channel';

/**
 * The `message/stream` answer of one run, as A2A stream responses: the task (`working`) at the run's first event,
 * then `working` status updates carrying text deltas (text parts), tool calls and results (data parts) and each
 * model call's usage (`metadata.bridle`), then the `answer` artifact and the final status. Sub-agents' events
 * stay out.
 */
export class TaskStream {
  readonly #channel = new EventChannel<StreamResponse>();
  readonly #taskId: string;
  readonly #contextId: string;
  #announced = false;

  constructor(taskId: string, contextId: string) {
    this.#taskId = taskId;
    this.#contextId = contextId;
  }

  #status(parts: Part[], metadata: Record<string, unknown>): StreamResponse {
    return {
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.#taskId,
          contextId: this.#contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: agentMessage(this.#taskId, this.#contextId, parts),
            timestamp: new Date().toISOString(),
          },
          metadata: { bridle: metadata },
        },
      },
    };
  }

  /** Hears one event of the run. */
  observe(event: RunEvent): void {
    const channel = this.#channel;
    if (!this.#announced) {
      this.#announced = true;
      channel.push({
        payload: { $case: 'task', value: taskOf({ runId: this.#taskId, status: 'running' }, this.#contextId) },
      });
    }
    if (event.parentRunId !== undefined) return;
    if (event.type === 'text_delta') {
      channel.push(this.#status([textPart(event.text)], { event: 'text_delta', step: event.step }));
    } else if (event.type === 'tool_start') {
      const call = { callId: event.callId, name: event.name, arguments: event.arguments };
      channel.push(this.#status([dataPart(call)], { event: 'tool_start' }));
    } else if (event.type === 'tool_end') {
      const outcome = { callId: event.callId, name: event.name, isError: event.isError, result: event.result };
      channel.push(this.#status([dataPart(outcome)], { event: 'tool_end' }));
    } else if (event.type === 'model_end') {
      channel.push(this.#status([], { event: 'usage', usage: event.usage }));
    }
  }

  /** Ends the stream with the run's outcome: the `answer` artifact (when completed) and the final status. */
  finish(facts: RunFacts): void {
    const task = taskOf(facts, this.#contextId);
    const answer = task.artifacts[0];
    const ids = { taskId: this.#taskId, contextId: this.#contextId };
    if (answer) {
      this.#channel.push({
        payload: {
          $case: 'artifactUpdate',
          value: { ...ids, artifact: answer, append: false, lastChunk: true, metadata: undefined },
        },
      });
    }
    this.#channel.push({
      payload: { $case: 'statusUpdate', value: { ...ids, status: task.status, metadata: task.metadata } },
    });
    this.#channel.end();
  }

  /** Ends the stream early (a revoked key): the run goes on. */
  end(): void {
    this.#channel.end();
  }

  /** Ends the stream with an error the client is sent. */
  fail(error: unknown): void {
    this.#channel.fail(error);
  }

  /** The responses, as they come. */
  responses(): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#channel.drain();
  }
}
