import { ConfigError, type Message, type Store, type Tool } from '@bridle/protocol';
import { type Memory, type MemoryOptions, type MemoryStrategy, resolveMemory } from './memory';
import { checkKeys, invalidOption } from './option-checks';
import { RUN_OPTION_KEYS, resolveOptions } from './resolve-options';
import { resumeRun } from './resume-run';
import { runAgent } from './run-agent';
import { type Skill, SkillSet } from './skill';
import type { SubAgentResume } from './sub-agent-run';
import type { AgentLimits, AgentResult, ResumeRunOptions, RunAgentOptions } from './types';

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
/** The key of `Agent`'s method that resumes a run as a sub-agent (internal to @bridle/core). */
export const SUB_AGENT_RESUME = Symbol('bridle.agent.subResume');
/** The key of `Agent`'s own store, if it has one (internal to @bridle/core). */
export const SUB_AGENT_STORE = Symbol('bridle.agent.subStore');

/** Per-run options of {@link Agent.run}. */
export interface AgentRunOptions {
  signal?: AbortSignal;
}

const AGENT_OPTION_KEYS = [
  ...RUN_OPTION_KEYS.filter(
    (key) => key !== 'prompt' && key !== 'signal' && key !== 'runId' && key !== 'sessionId' && key !== 'manifest',
  ),
  'memory',
];

/**
 * A conversation with a model over several runs. Each `run(input)` appends a user message and runs the
 * loop of `runAgent` on the whole conversation; `messages` holds the transcript so far (whatever the
 * status). `use()` adds tools and skills, `reset()` forgets the conversation. The constructor throws
 * `ConfigError` for invalid options.
 */
export class Agent<Output = unknown> {
  #options: AgentOptions<Output>;
  #skills: SkillSet;
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
    this.#skills = new SkillSet({
      ...(options.system === undefined ? {} : { system: options.system }),
      tools: options.tools ?? [],
    });
    this.#messages = messages?.length ? resolved.messages : [];
    this.#memory = resolveMemory(memory);
  }

  /** A copy of the conversation so far. */
  get messages(): Message[] {
    return [...this.#messages];
  }

  /** The tools the next run will offer. */
  get tools(): readonly Tool[] {
    return this.#skills.tools;
  }

  /** The system prompt the next run will send: `system` plus one section per skill used. */
  get system(): string | undefined {
    return this.#skills.system;
  }

  /**
   * Adds a tool, or a skill (`defineSkill` of @bridle/skills, or a partial one `{ name?, instructions?, tools? }`):
   * its instructions are appended to the system prompt in a delimited section and its tools registered (a tool
   * object the agent already holds is kept once, so skills can share tools). The rules are those of
   * `composeSkills`. Throws `ConfigError` (changing nothing) on a tool name clash, an invalid tool or a skill used
   * twice. Returns the agent.
   */
  use(toolOrSkill: Tool | Partial<Skill>): this {
    this.#skills.add(toolOrSkill);
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

  /** The agent's own store (a sub-agent without one journals to its parent's). */
  get [SUB_AGENT_STORE](): Store | undefined {
    return this.#options.store;
  }

  /**
   * Resumes a run of this agent as a sub-agent (`agentTool`): a pause of it, or a run its process left;
   * the conversation becomes the resumed run's transcript.
   */
  async [SUB_AGENT_RESUME](adjust: SubAgentAdjust, where: SubAgentResume): Promise<AgentResult<Output>> {
    this.#claim();
    const generation = this.#generation;
    try {
      const { memory: _memory, messages: _messages, ...limits } = this.#options;
      const {
        prompt: _prompt,
        messages: _input,
        runId: _runId,
        sessionId: _session,
        ...adjusted
      } = adjust(limits as RunAgentOptions);
      const result = await resumeRun<Output>({
        ...(adjusted as ResumeRunOptions<Output>),
        tools: this.#skills.tools,
        system: this.system,
        ...where,
      });
      if (generation === this.#generation) this.#messages = [...result.messages];
      return result;
    } finally {
      this.#running = false;
    }
  }

  #claim(): void {
    if (this.#running)
      throw new ConfigError('This agent is already running: await the previous run() before starting another.');
    this.#running = true;
  }

  async #run(input: string, adjust: SubAgentAdjust): Promise<AgentResult<Output>> {
    if (typeof input !== 'string' || input.length === 0) invalidOption('input', 'a non-empty string', input);
    this.#claim();
    const generation = this.#generation;
    try {
      const { memory: _memory, messages: _messages, ...limits } = this.#options;
      let messages: Message[] = [...this.#messages, { role: 'user', content: input }];
      const adjusted = adjust(limits as RunAgentOptions) as RunAgentOptions<Output>;
      if (this.#memory) messages = await this.#memory(messages, limits.model, adjusted.signal);
      const result = await runAgent<Output>({ ...adjusted, tools: this.#skills.tools, system: this.system, messages });
      if (generation === this.#generation) this.#messages = [...result.messages];
      return result;
    } finally {
      this.#running = false;
    }
  }
}
