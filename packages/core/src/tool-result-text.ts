import { errorMessage } from '@bridle/protocol/internal';
import type { PausedSubAgent } from './sub-agent-pause';

/** A tool message body before bounding. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** The call's sub-agent paused for approval: there is no result yet (the run pauses). */
  paused?: PausedSubAgent;
}

/**
 * A tool's return value as message text: a string verbatim, anything else as JSON (`undefined`, a
 * function or a symbol become `null`). A value JSON cannot represent (a BigInt, a cycle, a throwing
 * `toJSON`) becomes an error result saying so. Never throws.
 */
export function toolResultText(value: unknown, toolName: string): ToolOutcome {
  if (typeof value === 'string') return { content: value, isError: false };
  try {
    return { content: JSON.stringify(value) ?? 'null', isError: false };
  } catch (error) {
    return {
      content: `Tool ${toolName} returned a result that cannot be converted to JSON: ${errorMessage(error, 'JSON.stringify failed')}`,
      isError: true,
    };
  }
}
