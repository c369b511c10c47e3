import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentCard, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { afterEach } from 'vitest';

/** What the test agent does with a message's text: its answer, how it ends, the usage it reports. */
export type Behaviour = (text: string) => {
  state?: TaskState;
  answer?: string;
  updates?: string[];
  usage?: { inputTokens: number; outputTokens: number };
  hang?: boolean;
};

const open: Server[] = [];
afterEach(async () => {
  await Promise.all(
    open.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

const textPart = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/**
 * A real A2A server built with the official SDK (express, DefaultRequestHandler, in-memory tasks), whose agent
 * answers as `behave` says; `requests` records the authorization header and text of each JSON-RPC request.
 */
export async function startSdkAgent(
  behave: Behaviour,
  options: { streaming?: boolean; cardUrl?: (base: string) => string; rawJsonRpc?: express.RequestHandler } = {},
) {
  const requests: { authorization?: string; text: string; contextId: string }[] = [];
  let base = '';
  const card = (): AgentCard => ({
    name: 'test agent',
    description: 'answers as the test says',
    supportedInterfaces: [
      {
        url: options.cardUrl ? options.cardUrl(base) : `${base}/a2a`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  });
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const message = context.userMessage;
      const text = message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
      requests.push({
        text,
        contextId: context.contextId,
        ...(lastAuthorization ? { authorization: lastAuthorization } : {}),
      });
      const plan = behave(text);
      const task = {
        id: context.taskId,
        contextId: context.contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
      for (const update of plan.updates ?? []) {
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: context.taskId,
            contextId: context.contextId,
            status: {
              state: TaskState.TASK_STATE_WORKING,
              message: {
                messageId: randomUUID(),
                contextId: context.contextId,
                taskId: context.taskId,
                role: 2,
                parts: [textPart(update)],
                metadata: undefined,
                extensions: [],
                referenceTaskIds: [],
              },
              timestamp: undefined,
            },
            metadata: undefined,
          }),
        );
      }
      if (plan.hang) await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
      if (
        plan.answer !== undefined &&
        (plan.state ?? TaskState.TASK_STATE_COMPLETED) === TaskState.TASK_STATE_COMPLETED
      ) {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: context.taskId,
            contextId: context.contextId,
            artifact: {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [textPart(plan.answer)],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      }
      const state = plan.state ?? TaskState.TASK_STATE_COMPLETED;
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          status: {
            state,
            message:
              state === TaskState.TASK_STATE_COMPLETED || plan.answer === undefined
                ? undefined
                : {
                    messageId: randomUUID(),
                    contextId: context.contextId,
                    taskId: context.taskId,
                    role: 2,
                    parts: [textPart(plan.answer)],
                    metadata: undefined,
                    extensions: [],
                    referenceTaskIds: [],
                  },
            timestamp: undefined,
          },
          metadata: plan.usage ? { bridle: { usage: plan.usage } } : undefined,
        }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  let lastAuthorization: string | undefined;
  const app = express();
  app.use((request, _response, next) => {
    lastAuthorization = request.headers.authorization;
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card() }));
  app.use(
    '/a2a',
    options.rawJsonRpc ?? jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  open.push(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, requests };
}
