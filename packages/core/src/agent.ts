import { ConfigError, describeValue, type Message, type Tool } from '@bridle/protocol';
import { ToolRegistry } from '@bridle/registry';
import { type Memory, type MemoryOptions, type MemoryStrategy, resolveMemory } from './memory';
import { checkKeys, invalidOption } from './option-checks';
import { RUN_OPTION_KEYS, resolveOptions } from './resolve-options';
import { runAgent } from './run-agent';
import type { AgentLimits, AgentResult, RunAgentOptions } from './types';

/** A bundle of instructions and tools, e.g. from `defineSkill` of @bridle/skills. */
export interface Skill {
  name?: string;
  description?: string;
  /** Appended to the system prompt in a `<skill name="...">` section. */
  instructions?: string;
  tools?: readonly Tool[];
}

/** Options of {@link Agent}: those of `runAgent` without `prompt` and `signal`, plus `messages` and `memory`. */
export interface AgentOptions<Output = unknown> extends AgentLimits<Output> {
  model: RunAgentOptions['model'];
  tools?: readonly Tool[];
  system?: string;
  /** A conversation to continue (must pass `assertTranscript`). Default: empty. */
  messages?: readonly Message[];
  /** Keeps a long conversation bounded between runs: a budget (optionally with compaction) or a function. */
  memory?: MemoryOptions | MemoryStrategy;
}

/** Changes a sub-agent run's options (see `agentTool`). */
export type SubAgentAdjust = (options: RunAgentOptions) => RunAgentOptions;

/** The key of `Agent`'s method for runs as a sub-agent (internal to @bridle/core). */
export const SUB_AGENT_RUN = Symbol('bridle.agent.subRun');

/** Per-run options of {@link Agent.run}. */
export interface AgentRunOptions {
  signal?: AbortSignal;
}

const AGENT_OPTION_KEYS = [
  ...RUN_OPTION_KEYS.filter((key) => key !== 'prompt' && key !== 'signal' && key !== 'runId'),
  'memory',
];

function skillSection(skill: Skill): string {
  const name = skill.name === undefined ? '' : ` name=${JSON.stringify(skill.name)}`;
  return `<skill${name}>\n${skill.instructions}\n</skill>`;
}

/**
 * A conversation with a model over several runs. Each `run(input)` appends a user message and runs the
 * loop of `runAgent` on the whole conversation; `messages` holds the transcript so far (whatever the
 * status). `use()` adds tools and skills, `reset()` forgets the conversation. The constructor throws
 * `ConfigError` for invalid options.
 */
export class Agent<Output = unknown> {
  #options: AgentOptions<Output>;
  #tools: Tool[];
  #sections: string[] = [];
  #messages: Message[];
  #memory: Memory | undefined;
  #running = false;
  #generation = 0;

  constructor(options: AgentOptions<Output>) {
    if (typeof options !== 'object' || options === null) invalidOption('options', 'an options object', options);
    checkKeys('', options, AGENT_OPTION_KEYS);
    const { memory, messages, ...runOptions } = options;
    // Validate everything now (with a stand-in prompt) so mistakes surface at construction, not at run().
    const resolved = resolveOptions({ ...runOptions, ...(messages?.length ? { messages } : { prompt: '-' }) });
    this.#options = options;
    this.#tools = [...(options.tools ?? [])];
    this.#messages = messages?.length ? resolved.messages : [];
    this.#memory = resolveMemory(memory);
  }

  /** A copy of the conversation so far. */
  get messages(): Message[] {
    return [...this.#messages];
  }

  /** The tools the next run will offer. */
  get tools(): readonly Tool[] {
    return [...this.#tools];
  }

  /** The system prompt the next run will send: `system` plus one section per skill used. */
  get system(): string | undefined {
    const parts = this.#options.system === undefined ? this.#sections : [this.#options.system, ...this.#sections];
    return parts.length === 0 ? undefined : parts.join('\n\n');
  }

  /**
   * Adds a tool, or a skill (`{ name?, instructions?, tools? }`): its instructions are appended to the
   * system prompt in a delimited section and its tools registered (a tool object the agent already holds is
   * kept once, so skills can share tools). Throws `ConfigError` (changing
   * nothing) on a tool name clash or an invalid tool. Returns the agent.
   */
  use(toolOrSkill: Tool | Skill): this {
    if (typeof toolOrSkill !== 'object' || toolOrSkill === null)
      throw new ConfigError(
        `agent.use() needs a tool or a skill ({ instructions?, tools? }), got ${describeValue(toolOrSkill)}.`,
      );
    const isTool = typeof (toolOrSkill as Tool).execute === 'function';
    const skill: Skill = isTool ? { tools: [toolOrSkill as Tool] } : (toolOrSkill as Skill);
    if (skill.instructions !== undefined && typeof skill.instructions !== 'string')
      invalidOption('skill.instructions', 'a string', skill.instructions);
    if (skill.tools !== undefined && !Array.isArray(skill.tools))
      invalidOption('skill.tools', 'an array of tools', skill.tools);
    // The same tool object offered again (two skills sharing a toolbox) is already there: not a clash.
    const added = [...new Set(skill.tools ?? [])].filter((tool) => !this.#tools.includes(tool));
    const from = skill.name === undefined ? '' : ` of skill ${JSON.stringify(skill.name)}`;
    for (const tool of added) {
      if (this.#tools.some((existing) => existing.name === tool.name))
        throw new ConfigError(
          `Cannot use tool ${JSON.stringify(tool.name)}${from}: the agent already has a tool with that name. Rename one of them.`,
        );
    }
    // The registry checks names, schemas and duplicates within the new tools.
    new ToolRegistry([...this.#tools, ...added]);
    this.#tools.push(...added);
    if (skill.instructions) this.#sections.push(skillSection(skill));
    return this;
  }

  /** Forgets the conversation (a run in progress is not stopped, and its result is not kept). */
  reset(): void {
    this.#messages = [];
    this.#generation++;
  }

  /**
   * Continues the conversation with `input` as a new user message and runs the agent loop. Resolves
   * with the run's result (see `runAgent`); rejects with `ConfigError` for an empty input or when a
   * run of this agent is still in progress.
   */
  async run(input: string, options: AgentRunOptions = {}): Promise<AgentResult<Output>> {
    return this.#run(input, (limits) => (options.signal ? { ...limits, signal: options.signal } : limits));
  }

  /** A run as a sub-agent (`agentTool`): `adjust` sets the run's signal, deadline, budget and observers. */
  [SUB_AGENT_RUN](input: string, adjust: SubAgentAdjust): Promise<AgentResult<Output>> {
    return this.#run(input, adjust);
  }

  async #run(input: string, adjust: SubAgentAdjust): Promise<AgentResult<Output>> {
    if (typeof input !== 'string' || input.length === 0) invalidOption('input', 'a non-empty string', input);
    if (this.#running)
      throw new ConfigError('This agent is already running: await the previous run() before starting another.');
    this.#running = true;
    const generation = this.#generation;
    try {
      const { memory: _memory, messages: _messages, ...limits } = this.#options;
      let messages: Message[] = [...this.#messages, { role: 'user', content: input }];
      const adjusted = adjust(limits as RunAgentOptions) as RunAgentOptions<Output>;
      if (this.#memory) messages = await this.#memory(messages, limits.model, adjusted.signal);
      const result = await runAgent<Output>({ ...adjusted, tools: this.#tools, system: this.system, messages });
      if (generation === this.#generation) this.#messages = [...result.messages];
      return result;
    } finally {
      this.#running = false;
    }
  }
}
