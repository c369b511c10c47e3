import { defineSkill, type Skill } from './skill';
import { createToolbox, type Toolbox } from './toolbox';

/** Options of {@link assistantSkill}. */
export interface AssistantSkillOptions {
  /** The tools to use; default a fresh `createToolbox()`. Share one toolbox between skills that compose. */
  toolbox?: Toolbox;
}

function instructionsFor(toolbox: Toolbox): string {
  return `You are a helpful general assistant.
- For the current date or time, call the ${toolbox.clock.name} tool; never guess it.
- For arithmetic, call the ${toolbox.calculator.name} tool with the whole expression; never compute in your head.
- To look something up, fetch the page with the ${toolbox.httpFetch.name} tool and base your answer on what it returned; say which URL you used.
- Answer briefly and directly.`;
}

/** A general assistant: clock, calculator and HTTP fetch (SSRF-guarded), with instructions to use them. */
export function assistantSkill(options: AssistantSkillOptions = {}): Skill {
  const toolbox = options.toolbox ?? createToolbox();
  return defineSkill({
    name: 'assistant',
    description: 'General assistant with a clock, a calculator and web fetch.',
    instructions: instructionsFor(toolbox),
    tools: [toolbox.clock, toolbox.calculator, toolbox.httpFetch],
  });
}
