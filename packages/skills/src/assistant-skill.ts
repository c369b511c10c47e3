import { calculatorTool, clockTool, httpFetchTool } from '@bridle/tools';
import { defineSkill, type Skill } from './skill';

/** Options of {@link assistantSkill}. */
export interface AssistantSkillOptions {
  /** Passed to `clockTool` (default time zone of its answers). */
  timeZone?: string;
  /** Passed to `httpFetchTool` (allowed hosts, size and time limits). */
  http?: Parameters<typeof httpFetchTool>[0];
}

const INSTRUCTIONS = `You are a helpful general assistant.
- For the current date or time, call the clock tool; never guess it.
- For arithmetic, call the calculator tool with the whole expression; never compute in your head.
- To look something up, fetch the page with the http fetch tool and base your answer on what it returned; say which URL you used.
- Answer briefly and directly.`;

/** A general assistant: clock, calculator and HTTP fetch (SSRF-guarded), with instructions to use them. */
export function assistantSkill(options: AssistantSkillOptions = {}): Skill {
  return defineSkill({
    name: 'assistant',
    description: 'General assistant with a clock, a calculator and web fetch.',
    instructions: INSTRUCTIONS,
    tools: [
      clockTool(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
      calculatorTool(),
      httpFetchTool(options.http ?? {}),
    ],
  });
}
