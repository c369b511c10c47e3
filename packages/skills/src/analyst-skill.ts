import { calculatorTool, httpFetchTool } from '@bridle/tools';
import { defineSkill, type Skill } from './skill';

/** Options of {@link analystSkill}. */
export interface AnalystSkillOptions {
  /** Passed to `httpFetchTool` (allowed hosts, size and time limits). */
  http?: Parameters<typeof httpFetchTool>[0];
}

const INSTRUCTIONS = `You are a careful analyst. Answer with data and sources.
- Fetch the sources you rely on with the http fetch tool; never cite a page you did not fetch.
- Do every calculation with the calculator tool and show the expression you used.
- Give numbers with their units, dates and where they came from.
- End with a "Sources:" list of the URLs you used. If the data is missing or uncertain, say so instead of guessing.`;

/** An analyst: answers with figures computed by the calculator and sources fetched over HTTP, and cites them. */
export function analystSkill(options: AnalystSkillOptions = {}): Skill {
  return defineSkill({
    name: 'analyst',
    description: 'Answers with data and sources: fetches pages, computes with the calculator, cites URLs.',
    instructions: INSTRUCTIONS,
    tools: [calculatorTool(), httpFetchTool(options.http ?? {})],
  });
}
