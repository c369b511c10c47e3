import { randomUUID } from 'node:crypto';
import { type AgentCard, type Message, Role, type StreamResponse, type Task } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { ConfigError, type Tool, type ToolContext, type Usage } from '@bridle/protocol';
import { A2AAgentError } from './a2a-agent-error';
import { boundedFetch } from './bounded-fetch';
import { type Outcome, outcomeOf, partsText } from './task-outcome';

/** A progress update of the remote agent while it works (from `message/stream`). */
export interface A2AAgentUpdate {
  /** The remote task's id (absent for a plain message answer). */
  taskId?: string;
  /** `task`, `statusUpdate`, `artifactUpdate` or `message`: the A2A stream event it came from. */
  kind: string;
  /** The update's text (text parts; data parts as JSON). */
  text: string;
  /** The update's metadata as the peer sent it (untrusted). */
  metadata?: Record<string, unknown>;
}

/** Options of {@link a2aAgentTool}. */
export interface A2AAgentToolOptions {
  /** The tool's name as the model sees it; default `remote_agent`. */
  name?: string;
  /** What the model is told the tool does; default names the URL. */
  description?: string;
  /** Headers sent with every request (e.g. `authorization: Bearer <key>`); never shown to the peer's model. */
  headers?: Record<string, string>;
  /** Where the agent card is under `url`; default `.well-known/agent-card.json`. */
  cardPath?: string;
  /** The longest a call may take (card, request and stream), in milliseconds; default 120000. */
  timeoutMs?: number;
  /** Bytes one HTTP answer of the peer may have (the card, a JSON answer, a whole stream); default 4000000. */
  maxResponseBytes?: number;
  /** Characters of the answer the model gets (longer answers are cut, saying so); default 20000. */
  maxResultChars?: number;
  /** Use `message/stream` when the card offers streaming (updates reach `onUpdate`); default true. */
  stream?: boolean;
  /** Hears the remote agent's progress while it works (streaming only). Errors it throws are ignored. */
  onUpdate?: (update: A2AAgentUpdate) => void;
  /** Ask a person before each call (the core's approval rules); default false. */
  requiresApproval?: boolean;
  /** Keep one remote conversation (A2A context) per run, so a second call sees the first; default true. */
  continueConversation?: boolean;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** The arguments the model gives the tool. */
export interface A2AAgentToolArguments {
  message: string;
}

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const MAX_CONTEXTS = 1000;

function checkOptions(url: string, options: A2AAgentToolOptions): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`Invalid a2aAgentTool url "${url}": expected an absolute http(s) URL of the agent.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`Invalid a2aAgentTool url "${url}": expected http: or https:, got ${parsed.protocol}.`);
  }
  if (options.name !== undefined && !TOOL_NAME.test(options.name)) {
    throw new ConfigError(
      `Invalid a2aAgentTool name "${options.name}": use letters, digits, _ and -, starting with a letter.`,
    );
  }
  for (const key of ['timeoutMs', 'maxResponseBytes', 'maxResultChars'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new ConfigError(`Invalid a2aAgentTool ${key} ${String(value)}: expected a positive integer.`);
    }
  }
  return parsed;
}

/** Refuses a card whose endpoints are on another origin than the card's: a peer may not send us elsewhere. */
function checkCard(card: AgentCard, origin: string, url: string): void {
  for (const entry of card.supportedInterfaces ?? []) {
    let target: string;
    try {
      target = new URL(entry.url).origin;
    } catch {
      throw new A2AAgentError(
        `The agent card at ${url} lists an endpoint that is not a URL: ${JSON.stringify(entry.url)}.`,
      );
    }
    if (target !== origin) {
      throw new A2AAgentError(
        `The agent card at ${url} points to ${target}, another origin than its own (${origin}): refused. Use the card's own origin as the tool's url.`,
      );
    }
  }
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… the remote agent's answer was cut at ${max} of ${text.length} characters]`;
}

/**
 * A remote A2A agent as a tool: the model sends it a message (`{ message }`), the agent's answer (a completed
 * task's artifacts, or its message) is the result. Talks JSON-RPC through the official `@a2a-js/sdk` client (A2A
 * 1.0 cards and endpoints; a peer that speaks only 0.3 is not supported), streaming when the card offers it
 * (`onUpdate` hears the progress). The peer is untrusted: every answer is bounded (`maxResponseBytes`, `timeoutMs`, `maxResultChars`),
 * its card may not point to another origin, and failures are `A2AAgentError`s the run shows the model as error
 * results. What reaches the parent run: the answer, and the tokens a Bridle peer reports (`metadata.bridle.usage`)
 * through `context.addUsage`, so budgets see them. What does not: the peer's own events (they reach `onUpdate`
 * only, never the parent's journal), its dollar cost, and its approvals (a task waiting for input is an error).
 * The card is fetched at the first call (and again after a failure). Throws `ConfigError` for bad options.
 */
export function a2aAgentTool(url: string, options: A2AAgentToolOptions = {}): Tool<A2AAgentToolArguments, string> {
  const base = checkOptions(url, options);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxResultChars = options.maxResultChars ?? 20_000;
  const fetchImpl = boundedFetch(options.fetch ?? globalThis.fetch, {
    maxBytes: options.maxResponseBytes ?? 4_000_000,
    headers: options.headers ?? {},
    url,
  });
  const contexts = new Map<string, string>();
  let client: Promise<{ client: Client; card: AgentCard }> | undefined;

  const connect = () => {
    client ??= (async () => {
      const resolver = new DefaultAgentCardResolver({ fetchImpl });
      const card = await resolver.resolve(url, options.cardPath);
      checkCard(card, base.origin, url);
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: resolver,
      });
      return { client: await factory.createFromAgentCard(card), card };
    })();
    // A failure is not remembered: the next call tries again.
    client.catch(() => {
      client = undefined;
    });
    return client;
  };

  const listen = (event: StreamResponse) => {
    if (!options.onUpdate || !event.payload) return;
    const { $case, value } = event.payload;
    const update: A2AAgentUpdate =
      $case === 'statusUpdate'
        ? {
            kind: $case,
            taskId: value.taskId,
            text: partsText(value.status?.message?.parts),
            ...(value.metadata ? { metadata: value.metadata } : {}),
          }
        : $case === 'artifactUpdate'
          ? { kind: $case, taskId: value.taskId, text: partsText(value.artifact?.parts) }
          : $case === 'task'
            ? { kind: $case, taskId: value.id, text: partsText(value.status?.message?.parts) }
            : { kind: $case, text: partsText(value.parts) };
    try {
      options.onUpdate(update);
    } catch {
      // The listener's failure is its own.
    }
  };

  /** Follows a stream to its last task (or message), keeping the latest task as updates arrive. */
  async function followStream(client: Client, message: Message, signal: AbortSignal): Promise<Message | Task> {
    let task: Task | undefined;
    let final: Message | undefined;
    for await (const event of client.sendMessageStream(
      { tenant: '', message, configuration: undefined, metadata: undefined },
      { signal },
    )) {
      listen(event);
      const payload = event.payload;
      if (payload?.$case === 'task') task = payload.value;
      else if (payload?.$case === 'message') final = payload.value;
      else if (payload?.$case === 'statusUpdate' && task) {
        if (payload.value.status)
          task = { ...task, status: payload.value.status, metadata: payload.value.metadata ?? task.metadata };
      } else if (payload?.$case === 'artifactUpdate' && task && payload.value.artifact) {
        const artifact = payload.value.artifact;
        const others = task.artifacts.filter((known) => known.artifactId !== artifact.artifactId);
        const previous = task.artifacts.find((known) => known.artifactId === artifact.artifactId);
        const merged =
          payload.value.append && previous ? { ...artifact, parts: [...previous.parts, ...artifact.parts] } : artifact;
        task = { ...task, artifacts: [...others, merged] };
      }
    }
    if (final) return final;
    if (!task) throw new A2AAgentError(`The A2A agent at ${url} ended its stream without a task or message.`);
    return task;
  }

  async function call(args: A2AAgentToolArguments, context: ToolContext): Promise<string> {
    if (typeof args?.message !== 'string' || args.message.trim() === '') {
      throw new A2AAgentError('The argument "message" must be a non-empty string: what to ask the remote agent.');
    }
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
    const contextId = options.continueConversation === false ? undefined : contexts.get(context.runId);
    const message: Message = {
      messageId: randomUUID(),
      contextId: contextId ?? '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        { content: { $case: 'text', value: args.message }, metadata: undefined, filename: '', mediaType: 'text/plain' },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    let outcome: Outcome;
    try {
      const connected = await Promise.race([
        connect(),
        new Promise<never>((_resolve, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      ]);
      const streaming = options.stream !== false && connected.card.capabilities?.streaming === true;
      const answer = streaming
        ? await followStream(connected.client, message, signal)
        : await connected.client.sendMessage(
            { tenant: '', message, configuration: undefined, metadata: undefined },
            { signal },
          );
      outcome = outcomeOf(answer, url);
    } catch (error) {
      const usage = (error as { usage?: Usage }).usage;
      if (usage) context.addUsage?.(usage);
      if (context.signal.aborted) throw error;
      if (signal.aborted) {
        throw new A2AAgentError(`The A2A agent at ${url} did not answer within timeoutMs=${timeoutMs}.`, {
          cause: error,
        });
      }
      if (A2AAgentError.isInstance(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new A2AAgentError(`The A2A agent at ${url} failed: ${reason}`, { cause: error });
    }
    if (outcome.usage) context.addUsage?.(outcome.usage);
    if (outcome.contextId && options.continueConversation !== false) {
      if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
      contexts.set(context.runId, outcome.contextId);
    }
    return cut(outcome.text, maxResultChars);
  }

  return {
    name: options.name ?? 'remote_agent',
    description: options.description ?? `Sends a message to the remote agent at ${url} (A2A) and returns its answer.`,
    parameters: {
      type: 'object',
      properties: { message: { type: 'string', description: 'What to ask the remote agent, in full sentences.' } },
      required: ['message'],
      additionalProperties: false,
    },
    ...(options.requiresApproval ? { requiresApproval: true } : {}),
    execute: call,
  };
}
