import { randomUUID } from 'node:crypto';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { cancelRun, newRunId } from '@bridle/core';
import type { FastifyReply } from 'fastify';
import { runSessionId } from '../run-views';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import type { Session } from '../session-store';
import { getOwnSession, readOwnRun } from '../tenant-access';
import { type Caller, requireScope } from '../tenant-auth';
import { checkRequestQuotas } from '../tenant-quotas';
import { checkedDecisions, pendingOf } from '../turns/checked-decisions';
import { runSessionTurn, type TurnRequest } from '../turns/session-turn';
import { toA2AError } from './a2a-errors';
import { readA2ATurn } from './a2a-message';
import { factsOfRun, isTerminal, type RunFacts, taskOf, taskState } from './a2a-task';
import { TaskStream } from './task-stream';

/** Where the route keeps the request's caller in the SDK's call context. */
export const CALLER_KEY = 'bridle.caller';

function callerIn(context: ServerCallContext): Caller {
  return context.state.get(CALLER_KEY) as Caller;
}

/** A prepared turn: the session (A2A context) and what to run on it. */
interface PreparedTurn {
  session: Session;
  turn: TurnRequest;
  runId: string;
}

/**
 * The A2A face of one agent (a skill, or the server's default), for one HTTP request: a Bridle run is an A2A
 * task (the task id is the run id) and an A2A context is a Bridle session (the context id is the session id).
 * `message/send` runs a turn to its end; `message/stream` streams it (the task, `working` updates carrying
 * text deltas and tool calls as data, the `answer` artifact, the final status); `input-required` is a paused
 * run, answered by a message in the task with a data part `{ approvals }` under the approval rules;
 * `tasks/get` reads the run from the store (any server of it); `tasks/cancel` cancels it wherever it runs.
 * Another tenant's task or context is unknown. Push notifications, listing and resubscribing are unsupported.
 */
export class BridleA2AHandler implements A2ARequestHandler {
  readonly #context: ServerContext;
  readonly #reply: FastifyReply;
  readonly #card: AgentCard;
  readonly #skill: string | undefined;

  constructor(options: { context: ServerContext; reply: FastifyReply; card: AgentCard; skill: string | undefined }) {
    this.#context = options.context;
    this.#reply = options.reply;
    this.#card = options.card;
    this.#skill = options.skill;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError(
      'This agent has no extended card: its card is at /.well-known/agent-card.json.',
    );
  }

  /** Checks the message against its task and session; throws before anything runs. */
  async #prepare(params: SendMessageRequest, caller: Caller): Promise<PreparedTurn> {
    const message = params.message;
    const read = readA2ATurn(message);
    const context = this.#context;
    const taskId = message?.taskId ?? '';
    if (taskId !== '') {
      const run = await readOwnRun(context, caller, taskId);
      if (!run) throw new TaskNotFoundError(`Task ${taskId} does not exist here.`);
      const state = taskState(run.status);
      if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
        throw new UnsupportedOperationError(
          `Task ${taskId} is ${isTerminal(state) ? 'ended' : 'running'} (run status ${run.status}): send a new message without taskId, with its contextId, to continue the conversation.`,
        );
      }
      if (read.kind !== 'decide') {
        throw new ServerError(
          'bad_request',
          `Task ${taskId} waits for approval: answer with a data part { "approvals": { "<callId>": true | false } } (the pending calls are in its status message).`,
        );
      }
      requireScope(caller, 'approve');
      const sessionId = runSessionId(run);
      const stored = sessionId === undefined ? undefined : await getOwnSession(context, caller, sessionId);
      const now = Date.now();
      const session: Session = stored ?? {
        id: sessionId ?? randomUUID(),
        messages: [],
        createdAt: now,
        updatedAt: now,
        tenant: caller.tenant,
      };
      const approvals = await checkedDecisions(context, caller, taskId, read.decisions);
      return { session, turn: { kind: 'resume', runId: taskId, approvals }, runId: taskId };
    }
    if (read.kind === 'decide') {
      throw new ServerError('bad_request', 'Approvals answer a task waiting for input: send them with that taskId.');
    }
    // The day's quotas, as /api/chat's guard checks them for a new run (requests per minute were counted there).
    if (context.auth.named) {
      const { tokensPerDay, costUsdPerDay } = context.auth.quotasOf(caller.tenant);
      await checkRequestQuotas(
        context.ledger,
        caller,
        {
          ...(tokensPerDay === undefined ? {} : { tokensPerDay }),
          ...(costUsdPerDay === undefined ? {} : { costUsdPerDay }),
        },
        true,
      );
    }
    const contextId = message?.contextId ?? '';
    let session: Session;
    if (contextId === '') {
      const now = Date.now();
      session = { id: randomUUID(), messages: [], createdAt: now, updatedAt: now, tenant: caller.tenant };
    } else {
      const stored = await getOwnSession(context, caller, contextId);
      if (!stored) {
        throw new ServerError(
          'not_found',
          `Context ${contextId} does not exist here: omit contextId to start a conversation, or send the contextId this agent returned.`,
        );
      }
      if (
        stored.pendingRunId !== undefined &&
        (await context.store.readRun(stored.pendingRunId))?.status === 'awaiting_approval'
      ) {
        throw new ServerError(
          'session_busy',
          `Context ${contextId} has task ${stored.pendingRunId} waiting for input: answer it first (a message with that taskId).`,
        );
      }
      session = stored;
    }
    return { session, turn: { kind: 'prompt', prompt: read.prompt }, runId: newRunId() };
  }

  #facts(result: Awaited<ReturnType<typeof runSessionTurn>>): RunFacts {
    return {
      runId: result.runId,
      status: result.status,
      answer: result.answer,
      error: result.error,
      usage: result.usage,
      steps: result.steps,
      pendingApprovals: result.pendingApprovals,
    };
  }

  async sendMessage(params: SendMessageRequest, callContext: ServerCallContext): Promise<Message | Task> {
    try {
      const caller = callerIn(callContext);
      requireScope(caller, 'chat');
      const prepared = await this.#prepare(params, caller);
      const result = await runSessionTurn(this.#context, this.#reply, {
        caller,
        session: prepared.session,
        skill: this.#skill,
        turn: prepared.turn,
        runId: prepared.runId,
      });
      return taskOf(this.#facts(result), prepared.session.id);
    } catch (error) {
      throw toA2AError(error);
    }
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    callContext: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerIn(callContext);
    let prepared: PreparedTurn;
    try {
      requireScope(caller, 'chat');
      prepared = await this.#prepare(params, caller);
    } catch (error) {
      throw toA2AError(error);
    }
    const { session, runId } = prepared;
    const stream = new TaskStream(runId, session.id);
    runSessionTurn(this.#context, this.#reply, {
      caller,
      session,
      skill: this.#skill,
      turn: prepared.turn,
      runId,
      observe: (event) => stream.observe(event),
      // The stream ends; the run goes on for its tenant.
      onRevoked: () => stream.end(),
    }).then(
      (result) => stream.finish(this.#facts(result)),
      (error: unknown) => stream.fail(toA2AError(error)),
    );
    yield* stream.responses();
  }

  async getTask(params: GetTaskRequest, callContext: ServerCallContext): Promise<Task> {
    try {
      const caller = callerIn(callContext);
      requireScope(caller, 'runs:read');
      const run = await readOwnRun(this.#context, caller, params.id);
      if (!run) throw new TaskNotFoundError(`Task ${params.id} does not exist here.`);
      const pending = await pendingOf(this.#context, caller, params.id);
      return taskOf(factsOfRun(run, pending), runSessionId(run) ?? '');
    } catch (error) {
      throw toA2AError(error);
    }
  }

  async cancelTask(params: CancelTaskRequest, callContext: ServerCallContext): Promise<Task> {
    try {
      const caller = callerIn(callContext);
      requireScope(caller, 'chat');
      const run = await readOwnRun(this.#context, caller, params.id);
      if (!run) throw new TaskNotFoundError(`Task ${params.id} does not exist here.`);
      if (isTerminal(taskState(run.status))) {
        throw new TaskNotCancelableError(
          `Task ${params.id} has ended (run status ${run.status}): there is nothing to cancel.`,
        );
      }
      await cancelRun({
        store: this.#context.store,
        runId: params.id,
        by: caller.keyName ?? 'a2a',
        channels: this.#context.queue ? [this.#context.queue.queue] : [],
      });
      return await this.getTask({ tenant: params.tenant, id: params.id }, callContext);
    } catch (error) {
      throw toA2AError(error);
    }
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('Listing tasks is not supported here: GET /api/runs lists runs.');
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError('This agent sends no push notifications: use message/stream.');
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError('This agent sends no push notifications: use message/stream.');
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError('This agent sends no push notifications: use message/stream.');
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError('This agent sends no push notifications: use message/stream.');
  }

  // biome-ignore lint/correctness/useYield: it refuses before streaming anything.
  async *resubscribe(): AsyncGenerator<StreamResponse, void, undefined> {
    throw new UnsupportedOperationError(
      'Resubscribing is not supported here: follow GET /api/runs/:id/events instead.',
    );
  }
}
