import type { EventObserver } from '@bridle/events';
import { ConfigError, type Message, type Tool, type ToolContext } from '@bridle/protocol';
import { Agent, SUB_AGENT_RESUME, SUB_AGENT_RUN, SUB_AGENT_STORE } from './agent';
import { invalidOption } from './option-checks';
import { resolveOptions } from './resolve-options';
import { resumeRun } from './resume-run';
import { runAgent } from './run-agent';
import { RUN_LINK, type RunLink } from './run-link';
import { TAKE_OVER } from './run-ownership';
import { SUB_AGENT_CALL, SUB_AGENT_OF, type SubAgentCall } from './sub-agent-pause';
import { runSubAgent, type SubAgentResume, settleSubAgent } from './sub-agent-run';
import type { AgentResult, OwnershipOptions, RunAgentOptions } from './types';

/** Options of a sub-agent given as options: those of `runAgent`, without its input. */
export type SubAgentOptions = Omit<RunAgentOptions, 'prompt' | 'messages' | 'runId'>;

/** The tool's name and description, as the parent's model sees them. */
export interface AgentToolInfo {
  name: string;
  description: string;
}

const PARAMETERS = {
  type: 'object',
  properties: { prompt: { type: 'string', minLength: 1, description: 'The task for the sub-agent, in full.' } },
  required: ['prompt'],
  additionalProperties: false,
};

/** The parent has no budget left: the sub-agent does not start. */
class BudgetUsedUp extends Error {}

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

function observersOf(onEvent: RunAgentOptions['onEvent']): EventObserver[] {
  return onEvent === undefined ? [] : typeof onEvent === 'function' ? [onEvent] : [...onEvent];
}

/**
 * The child's options: the parent's signal, the tighter deadline and budget, and events forwarded up;
 * within a run, also its derived run id, and the parent's store, approve hook and decision key unless it
 * has its own.
 */
function childOptions(
  options: RunAgentOptions,
  context: ToolContext,
  link: RunLink | undefined,
  call: SubAgentCall | undefined,
): RunAgentOptions {
  const adjusted: RunAgentOptions = { ...options };
  adjusted.signal = options.signal ? AbortSignal.any([options.signal, context.signal]) : context.signal;
  if (!link) return adjusted;
  if (call) {
    adjusted.runId = call.runId;
    (adjusted as { [SUB_AGENT_OF]?: unknown })[SUB_AGENT_OF] = call.parent;
    adjusted.ownership = { ...options.ownership, [TAKE_OVER]: true } as OwnershipOptions;
    if (adjusted.store === undefined && link.store !== undefined) adjusted.store = link.store;
    if (adjusted.approve === undefined && link.approve !== undefined) adjusted.approve = link.approve;
    if (adjusted.decisionKey === undefined) adjusted.decisionKey = link.decisionKey;
  }
  const remaining = link.remainingMs();
  if (Number.isFinite(remaining)) {
    const parentMs = Math.max(1, Math.floor(remaining));
    adjusted.timeoutMs = options.timeoutMs === undefined ? parentMs : Math.min(options.timeoutMs, parentMs);
  }
  const left = link.remainingBudget();
  if (left && (left.maxTokens <= 0 || left.maxCostUsd <= 0)) throw new BudgetUsedUp();
  if (left) {
    const own = options.budget ?? {};
    const tighter = (mine: number | undefined, parent: number) =>
      Number.isFinite(parent) ? Math.min(mine ?? parent, parent) : mine;
    const maxTokens = tighter(own.maxTokens, left.maxTokens);
    const maxCostUsd = tighter(own.maxCostUsd, left.maxCostUsd);
    // The parent's gate (a tenant's quotas) also holds the sub-agent's model calls.
    const gate = own.gate ?? left.gate;
    adjusted.budget = {
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
      ...(gate === undefined ? {} : { gate }),
    };
  }
  if (link.observed) {
    const forward: EventObserver = (event) =>
      link.forward(event.parentRunId === undefined ? { ...event, parentRunId: link.runId } : event);
    adjusted.onEvent = [...observersOf(options.onEvent), forward];
  }
  return adjusted;
}

function lastText(messages: readonly Message[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === 'assistant' && message.content.trim() !== '') return message.content;
  }
  return undefined;
}

/** Run options as `resumeRun` takes them: without the input, the run id and the session. */
function resumable(options: RunAgentOptions) {
  const { prompt: _prompt, messages: _messages, runId: _runId, sessionId: _sessionId, ...rest } = options;
  return rest;
}

/** The child's answer for the parent's model, or a throw (an error result) naming its status. */
function answerOf(name: string, result: AgentResult): unknown {
  if (result.status === 'completed') return result.output !== undefined ? result.output : result.answer;
  const partial = lastText(result.messages);
  throw new Error(
    `Sub-agent ${name} ended with status ${result.status}${result.error ? `: ${result.error}` : '.'}${partial === undefined ? '' : ` Its last text: ${partial}`}`,
  );
}

/**
 * Makes an agent a tool of another agent: the tool takes `{ prompt }` and runs the sub-agent on it (an
 * `Agent` keeps its conversation across calls; options start a fresh run each call). The sub-agent's
 * events reach the parent's observers with `parentRunId`, its usage adds to the parent's, and it runs
 * under the parent's signal, the tighter of both deadlines and the parent's remaining budget. Without
 * its own `approve` hook or `store` it uses the parent's (journaling under its own run id, derived from
 * the parent's run, step and call). A call of it that waits for a person pauses the parent too: the
 * parent's `pendingApprovals` list it with the sub-agent's `runId`, and resuming the parent resumes the
 * sub-agent where it stopped. A sub-agent that ends otherwise without completing gives an error result
 * naming its status (and its last text). Throws `ConfigError` for invalid options or info.
 */
export function agentTool(agent: Agent | SubAgentOptions, info: AgentToolInfo): Tool<{ prompt: string }> {
  if (typeof info !== 'object' || info === null) invalidOption('info', 'an object { name, description }', info);
  if (typeof info.description !== 'string' || info.description.trim() === '')
    invalidOption('description', 'a non-empty string telling the model what the sub-agent does', info.description);
  if (!(agent instanceof Agent)) {
    if (typeof agent !== 'object' || agent === null) invalidOption('agent', 'an Agent or runAgent options', agent);
    for (const key of ['prompt', 'messages', 'runId'] as const)
      if (key in agent)
        throw new ConfigError(
          `agentTool: remove ${key} from the sub-agent's options; the parent's model gives its prompt.`,
        );
    // Mistakes surface now, not when the parent's model first calls the tool.
    resolveOptions({ ...(agent as RunAgentOptions), prompt: '-' });
  }
  const name = info.name;
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    invalidOption('name', 'a tool name matching ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$', name);
  return {
    name,
    description: info.description,
    parameters: PARAMETERS,
    // Safe to run again after a crash: the sub-agent journals where the parent does, and a call run again
    // continues the same sub-agent run (a derived run id) instead of starting another.
    idempotent: true,
    async execute({ prompt }, context) {
      const link = (context as ToolContext & { [RUN_LINK]?: RunLink })[RUN_LINK];
      const call = link ? (context as ToolContext & { [SUB_AGENT_CALL]?: SubAgentCall })[SUB_AGENT_CALL] : undefined;
      const adjust = (options: RunAgentOptions) => childOptions(options, context, link, call);
      let result: AgentResult;
      try {
        if (agent instanceof Agent) {
          const runner = {
            start: () => agent[SUB_AGENT_RUN](prompt, adjust),
            resume: (where: SubAgentResume) => agent[SUB_AGENT_RESUME](adjust, where),
          };
          result = call ? await runSubAgent(runner, agent[SUB_AGENT_STORE] ?? link?.store, call) : await runner.start();
        } else {
          const options = adjust({ ...(agent as RunAgentOptions), prompt });
          const runner = {
            start: () => runAgent(options),
            resume: (where: SubAgentResume) => resumeRun({ ...resumable(options), ...where }),
          };
          result = call ? await runSubAgent(runner, options.store, call) : await runner.start();
        }
      } catch (error) {
        if (!(error instanceof BudgetUsedUp)) throw error;
        throw new Error(
          `Sub-agent ${name} ended with status budget_limit: the parent run's budget is used up, so it did not start.`,
        );
      }
      if (!call) {
        link?.addUsage(result.usage);
        return answerOf(name, result);
      }
      return answerOf(name, settleSubAgent(result, call));
    },
  };
}
