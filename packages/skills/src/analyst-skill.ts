import { defineSkill, type Skill } from './skill';
import { createToolbox, type Toolbox } from './toolbox';

/** Options of {@link analystSkill}. */
export interface AnalystSkillOptions {
  /** The tools to use; default a fresh `createToolbox()`. Share one toolbox between skills that compose. */
  toolbox?: Toolbox;
}

function instructionsFor(toolbox: Toolbox): string {
  return `You are a careful analyst. Answer with data and sources.
- Fetch the sources you rely on with the ${toolbox.httpFetch.name} tool; never cite a page you did not fetch.
- Do every calculation with the ${toolbox.calculator.name} tool and show the expression you used.
- Give numbers with their units, dates and where they came from.
- End with a "Sources:" list of the URLs you used. If the data is missing or uncertain, say so instead of guessing.`;
}

/** An analyst: answers with figures computed by the calculator and sources fetched over HTTP, and cites them. */
export function analystSkill(options: AnalystSkillOptions = {}): Skill {
  const toolbox = options.toolbox ?? createToolbox();
  return defineSkill({
    name: 'analyst',
    description: 'Answers with data and sources: fetches pages, computes with the calculator, cites URLs.',
    instructions: instructionsFor(toolbox),
    tools: [toolbox.calculator, toolbox.httpFetch],
  });
}
